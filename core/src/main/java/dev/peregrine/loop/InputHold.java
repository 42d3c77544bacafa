package dev.peregrine.loop;

import dev.peregrine.buffer.BufferPool;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The input of one connection that its protocol has not consumed yet, at {@code [0, length())} of a
 * buffer lent by the loop's pool; no buffer while there is none (an idle connection holds nothing).
 * The twin of {@link OutputBacklog}: filled when the protocol leaves bytes of a read in the loop's
 * shared read buffer, appended to by later reads, offered to the protocol again as a whole.
 *
 * <pre>
 *   buffer: [ kept bytes (protocol.keep may drop framing already decoded) | room for the next read ]
 *           0                                                           length()              capacity
 * </pre>
 * Memory follows the bytes that arrived, not what a peer announced: a request head alone must not
 * reserve megabytes. The buffer grows by doubling as reads fill it, never past what the protocol
 * expects or the pool's largest buffer.
 *
 * <p>Once the connection has sent its FIN ({@code DRAINING}), input is no longer held but read and
 * discarded ({@link #discard}), within a budget.
 *
 * <p>Thread: the connection's loop thread.
 */
final class InputHold {
    /**
     * Bytes discarded after our FIN before the connection is closed regardless. Closing with unread
     * input makes the kernel send RST, which can destroy the last response before the peer reads it
     * (a client still sending a body the server refused, e.g. a 2 MiB upload answered 409 or 413), so
     * the budget is generous: discarding is cheap, and {@code drainTimeout} bounds the time.
     */
    private static final int DRAIN_BUDGET = 8 * 1024 * 1024;

    private final BufferPool pool;
    private ByteBuffer buf;
    private int end;
    private int drained;

    InputHold(BufferPool pool) {
        this.pool = pool;
    }

    /** The lent buffer, or null when nothing is held. */
    ByteBuffer buffer() {
        return buf;
    }

    int length() {
        return end;
    }

    /** {@link #readMore}: the buffer is full and as large as the pool lends, so nothing more fits. */
    static final int OVERFLOW = Integer.MIN_VALUE;

    /**
     * Appends one read of {@code c}'s socket after the held bytes, first doubling a full buffer (never
     * past what the protocol expects, {@code expected}); returns what the read returned, or
     * {@link #OVERFLOW}.
     */
    int readMore(Connection c, long expected) throws IOException {
        if (buf.capacity() == end) {
            if (buf.capacity() >= pool.maxBufferSize()) {
                return OVERFLOW;
            }
            int next = (int) Math.min(2L * buf.capacity(), Math.max(expected, pool.maxBufferSize()));
            buf = pool.grow(buf, 0, end, next);
        }
        return readFrom(c);
    }

    /** Appends one read of {@code c}'s socket after the held bytes; returns what the read returned. */
    private int readFrom(Connection c) throws IOException {
        buf.limit(buf.capacity()).position(end);
        int n = c.read(buf);
        if (n > 0) {
            end += n;
        }
        return n;
    }

    /**
     * Holds the bytes {@code [pos, to)} of {@code src} (the loop's read buffer, or this hold's own
     * buffer) that {@code protocol} left, through {@link Protocol#keep}; frees the buffer when none
     * are left.
     *
     * @param readBufferSize the loop's read buffer size: what a hold starts with at most, unless the
     *     bytes already there need more
     */
    void keep(Protocol protocol, ByteBuffer src, int pos, int to, int readBufferSize) {
        if (pos == to) {
            release();
            return;
        }
        int want = Math.max(Math.min(protocol.expectedInput(), readBufferSize), to - pos + 1);
        if (src == buf && buf.capacity() >= want) {
            end = protocol.keep(buf, pos, to, buf);
            return;
        }
        ByteBuffer dst = pool.acquire(want);
        end = protocol.keep(src, pos, to, dst);
        if (src == buf) {
            pool.release(buf);
        }
        buf = dst;
    }

    /** Gives the buffer back to the pool, if any. */
    void release() {
        if (buf != null) {
            pool.release(buf);
            buf = null;
            end = 0;
        }
        drained = 0; // the drain budget is per connection: a recycled one starts with all of it
    }

    /**
     * DRAINING: reads {@code c}'s socket into {@code scratch} and throws the bytes away until it is
     * empty; returns false when the connection should close now (end of stream, or the budget spent).
     */
    boolean discard(Connection c, ByteBuffer scratch) throws IOException {
        while (true) {
            scratch.clear();
            int n = c.read(scratch);
            if (n < 0) {
                return false;
            }
            if (n == 0) {
                return true;
            }
            drained += n;
            if (drained > DRAIN_BUDGET) {
                return false;
            }
        }
    }
}
