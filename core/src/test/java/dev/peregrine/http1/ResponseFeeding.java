package dev.peregrine.http1;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Feeds a response to a {@link ResponseReader} as the client connection does: in two pieces split
 * at {@code k} (0: whole), keeping from the response's first byte on NEED_MORE ({@link ResponseReader#keep})
 * into a new buffer (from {@link ResponseReader#responseStart()}: interim responses the reader skipped
 * are consumed), and, when asked, telling the reader the peer closed after the last byte. Every call
 * must make progress: a message ends inside the bytes held, and the end of input gives a verdict.
 */
final class ResponseFeeding {
    /**
     * What the reader made of the bytes: {@code result} is the message end, ERROR or NEED_MORE;
     * {@code unread} the bytes after a complete message, those not fed yet included.
     */
    record Outcome(int result, ByteBuffer buffer, ResponseReader reader, int unread) {
        boolean error() {
            return result == ResponseReader.ERROR;
        }

        boolean complete() {
            return result >= 0;
        }

        /** The body bytes, read as ISO-8859-1. */
        String body() {
            byte[] body = new byte[reader.bodyLength()];
            buffer.get(reader.bodyStart(), body);
            return new String(body, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    private ResponseFeeding() {
    }

    /** {@code wire} holds one response and nothing after it: a message must end where the bytes do. */
    static Outcome feed(ResponseReader r, byte[] wire, int k, boolean peerClosesAfter) {
        return feed(r, wire, k, peerClosesAfter, false);
    }

    /**
     * {@code wire} may hold bytes after the response (a mutated one may end early): they are counted
     * in {@link Outcome#unread}. The peer closes after the last byte.
     */
    static Outcome feedAllowingMore(ResponseReader r, byte[] wire, int k) {
        return feed(r, wire, k, true, true);
    }

    private static Outcome feed(ResponseReader r, byte[] wire, int k, boolean peerClosesAfter, boolean moreMayFollow) {
        ByteBuffer b = buffer(wire.length + 16);
        int start = 0;
        int end = 0;
        int fed = 0;
        int[] pieces = k == 0 ? new int[] {wire.length} : new int[] {k, wire.length - k};
        for (int piece : pieces) {
            b.put(end, wire, fed, piece);
            end += piece;
            fed += piece;
            int res = r.read(b, start, end);
            assertTrue(r.responseStart() >= start && r.responseStart() <= end,
                    "the final response starts at " + r.responseStart() + ", outside " + start + ".." + end);
            start = r.responseStart(); // interim responses before it are consumed
            if (res >= 0) {
                assertTrue(res > start && res <= end, "message end " + res + " outside " + start + ".." + end);
                if (!moreMayFollow) {
                    assertEquals(end, res, "the message ends where the bytes do");
                }
            }
            if (res != ResponseReader.NEED_MORE) {
                return new Outcome(res, b, r, res >= 0 ? end - res + wire.length - fed : 0);
            }
            ByteBuffer kept = buffer(wire.length + 16);
            end = r.keep(b, start, end, kept);
            start = 0;
            b = kept;
        }
        if (!peerClosesAfter) {
            return new Outcome(ResponseReader.NEED_MORE, b, r, 0);
        }
        int res = r.atEndOfInput(b, start, end);
        assertNotEquals(ResponseReader.NEED_MORE, res, "NEED_MORE at end of input");
        return new Outcome(res, b, r, 0);
    }

    static ByteBuffer buffer(int n) {
        return ByteBuffer.allocateDirect(n).order(ByteOrder.LITTLE_ENDIAN);
    }
}
