package dev.peregrine.websocket.codec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Unmasks a client's payload in place (RFC 6455 §5.3): byte {@code i} of the payload is XORed with
 * byte {@code i % 4} of the masking key. The payload arrives in pieces, so each call says how many
 * payload bytes came before it ({@code offset}), which rotates the key. The bulk goes eight bytes at a
 * time: the key rotated to the first byte and repeated twice makes a 64-bit word that lines up with
 * every following word, since 8 is a multiple of 4.
 * <pre>
 *   key (wire order)   k0 k1 k2 k3
 *   offset % 4 == 1    word mask bytes: k1 k2 k3 k0 k1 k2 k3 k0   (in buffer order)
 * </pre>
 * Thread: any (stateless).
 */
public final class Masking {
    private Masking() {
    }

    /**
     * XORs bytes {@code [from, to)} of {@code buf} with {@code key} (first wire byte in bits 24-31),
     * the first of them being payload byte number {@code offset}.
     */
    public static void unmask(ByteBuffer buf, int from, int to, int key, long offset) {
        if (key == 0) {
            return;
        }
        int rot = (int) (offset & 3);
        int rotated = rot == 0 ? key : (key << (rot * 8)) | (key >>> (32 - rot * 8)); // k[rot] now first
        int i = from;
        if (to - i >= 8) {
            long word;
            if (buf.order() == ByteOrder.BIG_ENDIAN) {
                word = ((long) rotated << 32) | (rotated & 0xFFFFFFFFL);
            } else {
                int le = Integer.reverseBytes(rotated);
                word = ((long) le << 32) | (le & 0xFFFFFFFFL);
            }
            int last = to - 8;
            for (; i <= last; i += 8) {
                buf.putLong(i, buf.getLong(i) ^ word);
            }
        }
        // The tail: (i - from) is a multiple of 8, so the rotation still starts at k[rot].
        for (int k = 0; i < to; i++, k++) {
            int shift = 24 - ((k & 3) * 8);
            buf.put(i, (byte) (buf.get(i) ^ (rotated >>> shift)));
        }
    }
}
