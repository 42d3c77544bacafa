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
}
