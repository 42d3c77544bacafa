package dev.peregrine.websocket.codec;

import java.nio.ByteBuffer;

/**
 * Writes a server frame's header (RFC 6455 §5.2, layout drawn in {@link FrameHeader}): a server never
 * masks (§5.1), so the header is 2, 4 or 10 bytes and the payload follows as it is. The length takes
 * its minimal form (§5.2: 0-125 in seven bits, up to 65535 in 16 bits, else 64 bits).
 *
 * <p>Thread: any (stateless).
 */
public final class FrameWriter {
    /** Bits of byte 0. */
    public static final int FIN = 0x80;
    public static final int RSV1 = 0x40;

    private FrameWriter() {
    }

    /** The header's length, in bytes, for a payload of {@code length} bytes. */
    public static int headerLength(long length) {
        return length < 126 ? 2 : length <= 0xFFFF ? 4 : 10;
    }

    /**
     * Puts a header at {@code out}'s position: {@code first} is byte 0 ({@link #FIN}, {@link #RSV1},
     * opcode), {@code length} the payload's length in bytes. {@code out} must have
     * {@link #headerLength} bytes free.
     */
    public static void putHeader(ByteBuffer out, int first, long length) {
        out.put((byte) first);
        if (length < 126) {
            out.put((byte) length);
        } else if (length <= 0xFFFF) {
            out.put((byte) 126);
            out.put((byte) (length >>> 8));
            out.put((byte) length);
        } else {
            out.put((byte) 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                out.put((byte) (length >>> shift));
            }
        }
    }

    /** A whole frame, header and payload, as bytes (for a frame encoded once and sent to many). */
    public static byte[] frame(int first, byte[] payload, int offset, int length) {
        int h = headerLength(length);
        byte[] f = new byte[h + length];
        putHeader(ByteBuffer.wrap(f), first, length);
        System.arraycopy(payload, offset, f, h, length);
        return f;
    }
}
