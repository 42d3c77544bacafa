package dev.peregrine.buffer;

import java.nio.ByteBuffer;

/**
 * Where a codec's encoded bytes go: a buffer to append to, and a way to empty it when it is full.
 * Implemented by the connection layer's connection, whose {@link #drain()} hands the bytes to the
 * socket or keeps them for later. It lives here, below both, so that a codec writes through it without
 * naming the connection layer and the connection layer implements it without naming a codec.
 */
public interface OutputSink {
    /** The buffer to append to, in write mode (bytes at {@code [0, position)} are waiting). */
    ByteBuffer out();

    /** Moves the waiting bytes out of {@link #out()} so that it is empty afterwards. */
    void drain();

    /** Appends {@code [off, off + len)} of {@code src}, draining {@link #out()} whenever it is full. */
    default void append(byte[] src, int off, int len) {
        ByteBuffer out = out();
        while (len > 0) {
            if (!out.hasRemaining()) {
                drain();
                out = out();
            }
            int n = Math.min(out.remaining(), len);
            out.put(src, off, n);
            off += n;
            len -= n;
        }
    }
}
