package dev.peregrine.compress.engine;

import java.util.Arrays;

/**
 * The growable output array the encoders share: bytes {@code [0, length)} are output, the rest is
 * room. Grows by doubling to the largest output it has held, then allocates no more.
 *
 * <p>Thread: the owning encoder's.
 */
abstract class OutputArray implements Encoder {
    byte[] out = new byte[8192];
    int length;

    /** Makes at least {@code room} bytes free after {@link #length}. */
    final void ensureRoom(int room) {
        if (out.length - length < room) {
            out = Arrays.copyOf(out, Math.max(length + room, out.length * 2));
        }
    }

    final void append(byte[] src, int off, int len) {
        ensureRoom(len);
        System.arraycopy(src, off, out, length, len);
        length += len;
    }

    @Override
    public final byte[] out() {
        return out;
    }

    @Override
    public final int outLength() {
        return length;
    }

    @Override
    public final void clearOut() {
        length = 0;
    }
}
