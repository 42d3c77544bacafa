package dev.peregrine.transport.iouring;

import java.nio.ByteBuffer;

/**
 * The ring buffers a connection's multishot receive has filled and its connection has not read yet, in
 * arrival order. {@link #copyTo} copies them into what the connection reads into (the loop's read
 * buffer, its held input, a TLS layer's buffer) and gives each buffer back to the {@link RecvRing} the
 * moment it is read out, so a buffer stays with a connection only while the connection does not read
 * (paused, or its turn ended by the fairness cap).
 * <pre>
 *   entries: [ bid | length ] [ bid | length ] ...       head entry read from {@code offset}
 *            head                              head + count - 1   (a circular array, grown by doubling)
 * </pre>
 * Usually one entry (a request's bytes), so the array starts with 4 and is made at the first completion.
 *
 * <p>Thread: the connection's loop.
 */
final class RecvQueue {
    private final RecvRing ring;
    /** {@code bid << 32 | length}, circular from {@link #head}. */
    private long[] entries;
    private int head;
    private int count;
    /** Bytes of the head entry already copied out. */
    private int offset;

    RecvQueue(RecvRing ring) {
        this.ring = ring;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Appends {@code length} bytes the kernel put in buffer {@code bid}. */
    void add(int bid, int length) {
        long[] e = entries;
        if (e == null) {
            e = entries = new long[4];
        } else if (count == e.length) {
            long[] bigger = new long[e.length * 2];
            for (int i = 0; i < count; i++) {
                bigger[i] = e[(head + i) & (e.length - 1)];
            }
            e = entries = bigger;
            head = 0;
        }
        e[(head + count) & (e.length - 1)] = (long) bid << 32 | length;
        count++;
    }

    /**
     * Copies as much as fits into {@code dst} from its position (advanced); each buffer emptied goes back
     * to the ring. Returns the bytes copied (0 when none is queued).
     */
    int copyTo(ByteBuffer dst) {
        int copied = 0;
        long[] e = entries;
        while (count > 0 && dst.hasRemaining()) {
            long entry = e[head];
            int bid = (int) (entry >>> 32);
            int length = (int) entry;
            int k = Math.min(length - offset, dst.remaining());
            dst.put(dst.position(), ring.buffer(bid), offset, k);
            dst.position(dst.position() + k);
            copied += k;
            offset += k;
            if (offset == length) {
                pop(bid);
            }
        }
        return copied;
    }

    private void pop(int bid) {
        ring.recycle(bid);
        head = (head + 1) & (entries.length - 1);
        count--;
        offset = 0;
    }

    /** Gives every queued buffer back to the ring unread (the connection closed). */
    void clear() {
        while (count > 0) {
            pop((int) (entries[head] >>> 32));
        }
    }
}
