package dev.peregrine.http1;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ChunkedDecoder}: in-place decoding, resumption, compaction, and each rejection. */
class ChunkedDecoderTest {
    private static final long MAX_BODY = 1 << 20;
    private static final int MAX_TRAILERS = 1024;

    @Test
    void decodesInPlaceRightAfterTheHead() {
        String head = "HEAD";
        String msg = head + "5\r\nHello\r\n8\r\n, World!\r\n0\r\n\r\nNEXT";
        ByteBuffer b = buf(msg);
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(head.length());
        int end = d.decode(b, 0, msg.length(), MAX_BODY, MAX_TRAILERS);
        assertEquals(msg.length() - 4, end, "message end: the next request starts after it");
        assertFalse(d.active());
        assertEquals("Hello, World!", text(b, d.bodyStartRel(), d.decodedLength()));
        assertEquals("HEAD", text(b, 0, 4), "head untouched");
        assertEquals("NEXT", text(b, end, 4), "next request untouched");
    }

    @Test
    void extensionsAreAcceptedAndTrailersKeptApartFromTheBody() {
        String msg = "3;a=b;c=\"d;e\"\r\nabc\r\n2 \t;x\r\nde\r\n0;z\r\nTrailer-One: 1\r\nT2:\r\n\r\n";
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(0);
        ByteBuffer b = buf(msg);
        assertEquals(msg.length(), d.decode(b, 0, msg.length(), MAX_BODY, MAX_TRAILERS));
        assertEquals("abcde", text(b, 0, d.decodedLength()));
        assertArrayEquals(new String[] {"Trailer-One", "1", "T2", ""}, d.trailerFields());
        d.start(0);
        assertNull(d.trailerFields(), "a new body has none until it ends");
    }

    @Test
    void aBodyWithoutTrailersHasNone() {
        String msg = "3\r\nabc\r\n0\r\n\r\n";
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(0);
        assertEquals(msg.length(), d.decode(buf(msg), 0, msg.length(), MAX_BODY, MAX_TRAILERS));
        assertNull(d.trailerFields());
    }

    /** Trailers split at every byte, the framing already read dropped after each piece as a connection does. */
    @Test
    void trailersAreKeptWholeAtEverySplitWhateverTheCompaction() {
        String wire = "5\r\nhello\r\n0\r\nChecksum: \t abc \r\nX-Many:1\r\nx-many: two words\r\nEmpty:\r\n\r\n";
        byte[] all = wire.getBytes(StandardCharsets.ISO_8859_1);
        String[] expected = {"Checksum", "abc", "X-Many", "1", "x-many", "two words", "Empty", ""};
        for (int split = 0; split <= all.length; split++) {
            ChunkedDecoder d = new ChunkedDecoder();
            d.start(0);
            ByteBuffer b = ByteBuffer.allocate(256);
            int held = 0;
            int r = ChunkedDecoder.NEED_MORE;
            for (int[] piece : new int[][] {{0, split}, {split, all.length}}) {
                b.put(held, all, piece[0], piece[1] - piece[0]);
                int to = held + piece[1] - piece[0];
                r = d.decode(b, 0, to, Long.MAX_VALUE, 1024);
                if (r >= 0) {
                    break;
                }
                assertNull(d.trailerFields(), "none before the end");
                int consumed = d.consumeDecoded();
                b.put(0, b, consumed, to - consumed);
                held = to - consumed;
            }
            assertTrue(r >= 0, "split at " + split);
            assertArrayEquals(expected, d.trailerFields(), "split at " + split);
        }
    }

    @Test
    void resumesOneByteAtATimeWithACompactionAfterEachArrival() {
        String msg = "HD" + "4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX: y\r\n\r\n";
        byte[] bytes = msg.getBytes(StandardCharsets.ISO_8859_1);
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(2);
        ByteBuffer b = FramingHarness.buffer(bytes.length);
        b.put(0, bytes, 0, 2); // the head is there before decoding starts
        int have = 2;
        int r = HeadParser.NEED_MORE;
        for (int i = 2; i < bytes.length; i++) {
            b.put(have++, bytes[i]);
            r = d.decode(b, 0, have, MAX_BODY, MAX_TRAILERS);
            if (r != ChunkedDecoder.NEED_MORE) {
                break;
            }
            ByteBuffer next = FramingHarness.buffer(bytes.length);
            have = d.compactInto(b, 0, have, next);
            assertEquals(have, d.compactedLength(0, have));
            b = next;
        }
        assertEquals(have, r);
        assertEquals("Wikipedia in\r\n\r\nchunks.", text(b, 2, d.decodedLength()));
        assertEquals("HD", text(b, 0, 2));
    }

    @Test
    void compactsInPlaceFromAnOffset() {
        String msg = "xxxxHD3\r\nabc\r\n2\r\nd";
        ByteBuffer b = buf(msg);
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(2);
        assertEquals(ChunkedDecoder.NEED_MORE, d.decode(b, 4, msg.length(), MAX_BODY, MAX_TRAILERS));
        int n = d.compactInto(b, 4, msg.length(), b);
        assertEquals("HDabcd", text(b, 0, n));
        b.put(n, "e\r\n0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(n + 8, d.decode(b, 0, n + 8, MAX_BODY, MAX_TRAILERS));
        assertEquals("abcde", text(b, 2, d.decodedLength()));
    }

    @Test
    void bodyOverTheLimitIs413FromTheSizeLine() {
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(0);
        assertEquals(-413, d.decode(buf("100001"), 0, 6, MAX_BODY, MAX_TRAILERS), "size alone, no data yet");
        d.start(0);
        String two = "80000\r\n" + "a".repeat(0x80000) + "\r\n80001\r\n";
        assertEquals(-413, d.decode(buf(two), 0, two.length(), MAX_BODY, MAX_TRAILERS), "sum of chunks");
        d.start(0);
        String exact = "100000\r\n" + "a".repeat(0x100000) + "\r\n0\r\n\r\n";
        assertEquals(exact.length(), d.decode(buf(exact), 0, exact.length(), MAX_BODY, MAX_TRAILERS), "exactly the limit");
    }

    @Test
    void malformedFramingIs400() {
        String[] bad = {"\r\n", "x\r\n", "5x\r\nhello\r\n", " 5\r\n", "5\nhello", "5\r\nhelloX", "5\r\nhello\rX",
            "5;\u0001\r\n", "5 x\r\n", "0\r\n X: y\r\n\r\n", "0\r\nX : y\r\n\r\n", "0\r\n: y\r\n\r\n", "0\r\nX: \u0000\r\n\r\n",
            "0\r\nX: y\n\r\n", "0\r\n\n",
            // RFC 9112 §7.1.1: a name after every ';', BWS only before ';' or '=', quotes closed by the line end
            "5;\r\n", "5;;a\r\n", "a \r\n", "5\t\r\n", "5;a \r\n", "5;a=b \r\n", "5;a=\r\n", "5;a=\"b\r\n",
            "5;a=\"b\\\"\r\n", "5;=b\r\n", "5;a=b c\r\n", "5;a=\"b\"c\r\n"};
        for (String s : bad) {
            ChunkedDecoder d = new ChunkedDecoder();
            d.start(0);
            assertEquals(-400, d.decode(buf(s), 0, s.length(), MAX_BODY, MAX_TRAILERS), s);
        }
    }

    @Test
    void wellFormedExtensionsWithBwsAndQuotedValuesAreAccepted() {
        String[] good = {"5 ;a\r\n", "5\t; a\r\n", "5;a = b\r\n", "5;a=\"b;c\\\"d\"\r\n", "5;a;b=c ;d\r\n", "5;a=\"\"\r\n"};
        for (String line : good) {
            String s = line + "hello\r\n0\r\n\r\n";
            ChunkedDecoder d = new ChunkedDecoder();
            d.start(0);
            assertEquals(s.length(), d.decode(buf(s), 0, s.length(), MAX_BODY, MAX_TRAILERS), line);
            assertEquals(5, d.decodedLength(), line);
        }
    }

    @Test
    void anUnbalancedQuoteIsRefusedAtTheLineEndNotWaitedOn() {
        String s = "5;a=\"open\r\n";
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(0);
        assertEquals(-400, d.decode(buf(s), 0, s.length(), MAX_BODY, MAX_TRAILERS));
    }

    @Test
    void overlongSizeLineIs400AndOverlongTrailersAre431() {
        String ext = "5;" + "e".repeat(ChunkedDecoder.MAX_LINE) + "\r\n";
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(0);
        assertEquals(-400, d.decode(buf(ext), 0, ext.length(), MAX_BODY, MAX_TRAILERS));
        String trailers = "0\r\nX: " + "t".repeat(MAX_TRAILERS) + "\r\n\r\n";
        d.start(0);
        assertEquals(-431, d.decode(buf(trailers), 0, trailers.length(), MAX_BODY, MAX_TRAILERS));
    }

    @Test
    void resetForgetsTheBodyInProgress() {
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(0);
        assertEquals(ChunkedDecoder.NEED_MORE, d.decode(buf("5\r\nhe"), 0, 5, MAX_BODY, MAX_TRAILERS));
        assertTrue(d.active());
        d.reset();
        assertFalse(d.active());
    }

    private static ByteBuffer buf(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        return FramingHarness.bufferOf(bytes, bytes.length + 16);
    }

    private static String text(ByteBuffer b, int start, int length) {
        byte[] out = new byte[length];
        b.get(start, out);
        return new String(out, StandardCharsets.ISO_8859_1);
    }

    @Test
    void streamedDecodingHandsOnEachRunAndKeepsOnlyWhatItHasNotReadAtEverySplit() {
        String wire = "5;a=b\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nT: v\r\n\r\n";
        byte[] all = wire.getBytes(StandardCharsets.ISO_8859_1);
        for (int split = 0; split <= all.length; split++) {
            ChunkedDecoder d = new ChunkedDecoder();
            d.start(0);
            StringBuilder body = new StringBuilder();
            ByteBuffer b = ByteBuffer.allocate(256);
            int held = 0; // bytes kept at [0, held) from the last call, as a connection keeps them
            int end = -1;
            for (int[] piece : new int[][] {{0, split}, {split, all.length}}) {
                b.put(held, all, piece[0], piece[1] - piece[0]);
                int to = held + piece[1] - piece[0];
                int r = d.decode(b, 0, to, Long.MAX_VALUE, 1024);
                for (int i = d.bodyStartRel(); i < d.decodedEndRel(); i++) {
                    body.append((char) b.get(i));
                }
                if (r >= 0) {
                    end = r;
                    break;
                }
                assertEquals(ChunkedDecoder.NEED_MORE, r);
                int consumed = d.consumeDecoded();
                b.put(0, b, consumed, to - consumed); // keep the unread rest at the front
                held = to - consumed;
                assertTrue(held < 16, "only a partial framing line is ever held, not " + held + " bytes");
            }
            assertEquals("helloabcdefghijklmnopqrstuvwxyz", body.toString(), "split at " + split);
            assertTrue(end > 0, "split at " + split);
        }
    }
    @Test
    void streamedDecodingCountsTheLimitAcrossRuns() {
        // a body streamed as it is decoded (the server's IncomingBody): maxStreamedBodySize bounds the running total
        ChunkedDecoder d = new ChunkedDecoder();
        d.start(0);
        ByteBuffer b = ByteBuffer.allocate(64);
        byte[] first = "5\r\nhello\r\n3".getBytes(StandardCharsets.ISO_8859_1);
        b.put(0, first);
        assertEquals(ChunkedDecoder.NEED_MORE, d.decode(b, 0, first.length, 8, 1024));
        assertEquals(5, d.decodedEndRel() - d.bodyStartRel());
        d.consumeDecoded();
        byte[] second = "\r\nabc\r\n".getBytes(StandardCharsets.ISO_8859_1);
        b.put(0, second);
        assertEquals(ChunkedDecoder.NEED_MORE, d.decode(b, 0, second.length, 8, 1024), "5 + 3 is the limit, not past it");
        d.consumeDecoded();
        byte[] third = "1\r\n".getBytes(StandardCharsets.ISO_8859_1);
        b.put(0, third);
        assertEquals(-413, d.decode(b, 0, third.length, 8, 1024), "the running total passes the limit at the size line");
    }
}
