package dev.peregrine.http1;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Feeds a response to a {@link ResponseReader} as the client connection does: in two pieces split
 * at {@code k} (0: whole), keeping from the response's first byte on NEED_MORE ({@link ResponseReader#keep}),
 * skipping interim responses, and, when asked, telling the reader the peer closed after the last byte.
 */
final class ResponseFeeding {
    /** What the reader made of the bytes: {@code result} is the message end, ERROR or NEED_MORE. */
    record Outcome(int result, ByteBuffer buffer, ResponseReader reader) {
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

    static Outcome feed(ResponseReader r, byte[] wire, int k, boolean peerClosesAfter) {
        ByteBuffer b = buffer(wire.length + 16);
        int start = 0;
        int end = 0;
        int fed = 0;
        int[] pieces = k == 0 ? new int[] {wire.length} : new int[] {k, wire.length - k};
        for (int piece : pieces) {
            b.put(end, wire, fed, piece);
            end += piece;
            fed += piece;
            while (true) {
                int res = r.read(b, start, end);
                if (res == ResponseReader.INTERIM) {
                    start = r.interimEnd();
                    continue;
                }
                if (res >= 0) {
                    assertEquals(end, res, "the message ends where the bytes do");
                }
                if (res != ResponseReader.NEED_MORE) {
                    return new Outcome(res, b, r);
                }
                break;
            }
            ByteBuffer kept = buffer(wire.length + 16);
            end = r.keep(b, start, end, kept);
            start = 0;
            b = kept;
        }
        return new Outcome(peerClosesAfter ? r.atEndOfInput(b, start, end) : ResponseReader.NEED_MORE, b, r);
    }

    static ByteBuffer buffer(int n) {
        return ByteBuffer.allocateDirect(n).order(ByteOrder.LITTLE_ENDIAN);
    }
}
