package dev.peregrine.http1;

import java.nio.ByteBuffer;

/**
 * Chunked coding written in place around data a producer put straight into an output buffer
 * (RFC 9112 §7.1): room for a fixed-width size line is left before the data, then filled in once the
 * data's length is known, so the bytes are never copied.
 *
 * <pre>
 *   sizeAt                 dataStart = sizeAt + SIZE_LINE
 *   | 8 hex digits | CR LF | n bytes of data | CR LF |
 * </pre>
 * A piece of no data leaves nothing (the reserved room is given back); the body ends with
 * {@link #LAST_CHUNK}. Thread: any (static).
 */
public final class ChunkFraming {
    /** Bytes reserved before the data: eight hex digits (leading zeros are allowed) and CRLF. */
    public static final int SIZE_LINE = 10;
    /** The last chunk with no trailers. */
    public static final byte[] LAST_CHUNK = {'0', '\r', '\n', '\r', '\n'};
    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private ChunkFraming() {
    }

    /**
     * Frames the {@code n} bytes just put at {@code [sizeAt + SIZE_LINE, position)} of {@code out}:
     * writes the size line at {@code sizeAt} and CRLF after the data; for {@code n == 0} moves the
     * position back to {@code sizeAt} instead.
     */
    public static void frame(ByteBuffer out, int sizeAt, int n) {
        if (n == 0) {
            out.position(sizeAt);
            return;
        }
        for (int i = 0; i < 8; i++) {
            out.put(sizeAt + i, HEX[(n >>> (28 - 4 * i)) & 15]);
        }
        out.put(sizeAt + 8, (byte) '\r').put(sizeAt + 9, (byte) '\n');
        out.put((byte) '\r').put((byte) '\n');
    }

    /**
     * Writes the shortest size line of a chunk of {@code len} bytes (hex, CRLF) at the end of
     * {@code line} (at least {@link #SIZE_LINE} long); returns how many bytes it used, which end there.
     */
    public static int sizeLine(byte[] line, int len) {
        int i = line.length;
        line[--i] = '\n';
        line[--i] = '\r';
        do {
            line[--i] = HEX[len & 15];
            len >>>= 4;
        } while (len != 0);
        return line.length - i;
    }
}
