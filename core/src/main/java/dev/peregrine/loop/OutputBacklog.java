package dev.peregrine.loop;

import dev.peregrine.buffer.BufferPool;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The bytes of one connection that its socket has not taken yet, at {@code [start, end)} of a buffer
 * lent by the loop's pool; no buffer while there are none. Appended to when a batch is only partly
 * written, written on writability. Created by the {@link Connection} the first time its socket
 * refuses bytes, then kept.
 *
 * <p>Thread: the connection's loop thread.
 */
final class OutputBacklog {
    private final BufferPool pool;
    private ByteBuffer buf;
    private int start;
    private int end;

    OutputBacklog(BufferPool pool) {
        this.pool = pool;
    }

    boolean isEmpty() {
        return buf == null;
    }

    int size() {
        return buf == null ? 0 : end - start;
    }

    /** Appends the remaining bytes of {@code src} (consuming them), growing the lent buffer as needed. */
    void append(ByteBuffer src) {
        int n = src.remaining();
        if (buf == null) {
            buf = pool.acquire(n);
            start = 0;
            end = 0;
        }
        // writeTo left the limit at the old end; absolute puts are bounded by the limit.
        buf.limit(buf.capacity());
        if (buf.capacity() - end < n) {
            int pending = end - start;
            if (pending + n <= buf.capacity()) {
                buf.put(0, buf, start, pending);
            } else {
                buf = pool.grow(buf, start, pending, pending + n);
            }
            start = 0;
            end = pending;
        }
        buf.put(end, src, src.position(), n);
        end += n;
        src.position(src.limit());
    }

    /** Writes what {@code io} takes now; returns the bytes written. The buffer goes back once empty. */
    int writeTo(SocketEndpoint io) throws IOException {
        buf.limit(end).position(start);
        int n = io.write(buf);
        start += n;
        if (start == end) {
            release();
        }
        return n;
    }

    /** Drops what is pending and returns the buffer. */
    void release() {
        if (buf != null) {
            pool.release(buf);
            buf = null;
        }
    }
}
