package dev.peregrine.http1;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RequestFramer} on input arriving in many pieces, kept between arrivals the way the
 * connection keeps it: the answer is the unsplit one, and a head is parsed a bounded number of times
 * however many pieces it comes in (never once per arrival).
 */
class RequestFramerTest {
    /** Feeds {@code wire} in pieces of {@code piece} bytes, keeping the unframed rest like the connection. */
    private static int feed(FramingHarness f, byte[] wire, int piece) {
        ByteBuffer b = FramingHarness.buffer(wire.length + 16);
        int end = 0;
        int fed = 0;
        while (fed < wire.length) {
            int n = Math.min(piece, wire.length - fed);
            b.put(end, wire, fed, n);
            end += n;
            fed += n;
            int r = f.frame(b, end);
            if (r != RequestFramer.NEED_MORE) {
                return r;
            }
            ByteBuffer kept = FramingHarness.buffer(wire.length + 16);
            end = f.keep(b, end, kept);
            b = kept;
        }
        return RequestFramer.NEED_MORE;
    }

    @Test
    void aChunkedRequestInOneBytePiecesIsParsedThreeTimesAtMost() {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            body.append("a;ext=").append(i).append("\r\n0123456789\r\n");
        }
        byte[] wire = ("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + body + "0\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        FramingHarness f = new FramingHarness(1 << 20);
        int r = feed(f, wire, 1);
        assertTrue(r > 0, "complete: " + r);
        assertEquals(500, f.request.bodyLength());
        assertTrue(f.framer.parses() <= 3, "parses: " + f.framer.parses()); // first bytes, whole head, whole body
    }

    @Test
    void aLargeHeadInSmallPiecesIsParsedABoundedNumberOfTimes() {
        StringBuilder head = new StringBuilder("GET /big HTTP/1.1\r\nHost: x\r\n");
        int i = 0;
        while (head.length() < 14_600) {
            head.append("X-Header-").append(i++).append(": ").append("v".repeat(80)).append("\r\n");
        }
        byte[] wire = (head + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        FramingHarness f = new FramingHarness(8 * 1024, 16 * 1024, 200, 1 << 20);
        int r = feed(f, wire, 100);
        assertEquals(wire.length, r);
        assertTrue(f.framer.parses() <= 3, "parses: " + f.framer.parses());
    }

    @Test
    void aHeadGrowingPastTheLimitGetsTheUnsplitAnswer() {
        StringBuilder head = new StringBuilder("GET /big HTTP/1.1\r\nHost: x\r\n");
        while (head.length() < 20_000) {
            head.append("X-Long: ").append("v".repeat(100)).append("\r\n");
        }
        byte[] wire = (head + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        int whole = new FramingHarness(8 * 1024, 16 * 1024, 1000, 1 << 20).frame(FramingHarness.bufferOf(wire, wire.length), wire.length);
        assertTrue(whole < 0, "rejected whole: " + whole);
        assertEquals(whole, feed(new FramingHarness(8 * 1024, 16 * 1024, 1000, 1 << 20), wire, 100));
    }
    @Test
    void withOfferChunkedAChunkedHeadIsALargeBodyAndGatheringItGivesTheUnsplitAnswerAtEverySplit() {
        String next = "GET /next HTTP/1.1\r\n\r\n";
        byte[] wire = ("POST /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;a=\"b c\"\r\nhello\r\n6\r\n world\r\n0\r\nT: v\r\n\r\n" + next).getBytes(StandardCharsets.ISO_8859_1);
        for (int split = 1; split <= wire.length; split++) {
            HeadParser parser = new HeadParser(FramingHarness.MAX_REQUEST_LINE, FramingHarness.MAX_HEAD, FramingHarness.MAX_HEADERS);
            dev.peregrine.exchange.RequestView req = new dev.peregrine.exchange.RequestView(FramingHarness.MAX_HEADERS);
            RequestFramer framer = new RequestFramer(parser, 1 << 20, FramingHarness.MAX_HEAD, Long.MAX_VALUE, true);
            ByteBuffer b = FramingHarness.buffer(wire.length + 16);
            b.put(0, wire, 0, split);
            int end = split;
            boolean restSent = false;
            int r = framer.frame(b, 0, end, req);
            int offers = 0;
            while (true) {
                if (r == RequestFramer.LARGE_BODY) { // the server's caller, for a route that does not stream: gathered
                    assertTrue(req.isChunked());
                    offers++;
                    r = framer.bufferedBody(b, 0, end, req);
                }
                if (r != RequestFramer.NEED_MORE || restSent) {
                    break;
                }
                ByteBuffer kept = FramingHarness.buffer(wire.length + 16);
                end = framer.keep(b, 0, end, kept); // decoded chunk framing is dropped
                b = kept;
                b.put(end, wire, split, wire.length - split);
                end += wire.length - split;
                restSent = true;
                r = framer.frame(b, 0, end, req);
            }
            assertTrue(r > 0, "split at " + split + ": " + r);
            assertEquals(1, offers, "split at " + split + ": offered once, at its head");
            assertEquals("hello world", new String(req.bodyBytes(), StandardCharsets.ISO_8859_1), "split at " + split);
            assertEquals(-1, req.contentLength(), "a chunked body has no length");
            String after = StandardCharsets.ISO_8859_1.decode(b.duplicate().position(r).limit(end)).toString();
            assertTrue(next.startsWith(after) && (restSent || split >= wire.length - next.length()), "split at " + split + ": " + after);
            assertEquals(restSent ? next : next.substring(0, split - (wire.length - next.length())), after, "split at " + split);
        }
    }
}
