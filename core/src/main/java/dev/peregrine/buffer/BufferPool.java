package dev.peregrine.buffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;

/**
 * A per-loop pool of direct buffers in power-of-two size classes, lent to connections that must keep
 * bytes between two readiness events (an incomplete request, unsent output) and returned as soon as
 * they are empty. An idle connection holds none.
 *
 * <pre>
 *   class:    0      1      2       ...   k
 *   size:   4 KiB  8 KiB  16 KiB    ...   4 KiB &lt;&lt; k     (up to maxBufferSize)
 *   free:   [b][b] [b]    []              []              at most retainPerClass buffers kept each
 * </pre>
 *
 * <p>Buffers larger than {@link #RETAIN_LIMIT} are never kept: they are rare (a multi-megabyte body)
 * and dropping them lets the JVM reclaim their native memory. Counters track what is lent, so a test
 * (and {@code Server.metrics()}) can prove that every buffer came back.
 *
 * <p>Thread: the owning event loop only.
 */
public final class BufferPool {
    /** Smallest buffer handed out, in bytes. */
    public static final int MIN_SIZE = 4096;
    /** Buffers above this size (bytes) are allocated on demand and dropped when returned. */
    public static final int RETAIN_LIMIT = 1 << 20;

    private static final int MIN_SHIFT = Integer.numberOfTrailingZeros(MIN_SIZE);

    private final ArrayDeque<ByteBuffer>[] free;
    private final int retainPerClass;
    private final int maxBufferSize;
    private int lentCount;
    private long lentBytes;
    private long freeBytes;

    /**
     * @param maxBufferSize the largest buffer, in bytes, that may ever be asked for
     * @param retainPerClass how many returned buffers each size class keeps for reuse
     */
    @SuppressWarnings("unchecked")
    public BufferPool(int maxBufferSize, int retainPerClass) {
        this.maxBufferSize = Math.max(MIN_SIZE, maxBufferSize);
        this.retainPerClass = retainPerClass;
        int classes = sizeClass(this.maxBufferSize) + 1;
        free = new ArrayDeque[classes];
        for (int i = 0; i < classes; i++) {
            free[i] = new ArrayDeque<>();
        }
    }

    /** The size class (0 for {@link #MIN_SIZE}) whose buffers hold at least {@code bytes}. */
    static int sizeClass(int bytes) {
        if (bytes <= MIN_SIZE) {
            return 0;
        }
        return 32 - Integer.numberOfLeadingZeros(bytes - 1) - MIN_SHIFT;
    }

    /** The capacity, in bytes, of the buffer {@link #acquire} returns for a request of {@code bytes}. */
    public static int capacityFor(int bytes) {
        return MIN_SIZE << sizeClass(bytes);
    }

    /**
     * Lends a cleared little-endian direct buffer of at least {@code bytes} capacity. Sizes above the
     * pool's maximum are served too, unpooled, for the rare response larger than any request.
     */
    public ByteBuffer acquire(int bytes) {
        int cls = sizeClass(bytes);
        ByteBuffer b = cls < free.length ? free[cls].pollFirst() : null;
        int capacity = cls < 31 - MIN_SHIFT ? MIN_SIZE << cls : bytes;
        if (b == null) {
            b = ByteBuffer.allocateDirect(capacity).order(ByteOrder.LITTLE_ENDIAN);
        } else {
            freeBytes -= capacity;
            b.clear();
        }
        lentCount++;
        lentBytes += capacity;
        return b;
    }

    /** Takes back a buffer lent by {@link #acquire}. Returning {@code null} does nothing. */
    public void release(ByteBuffer b) {
        if (b == null) {
            return;
        }
        int capacity = b.capacity();
        lentCount--;
        lentBytes -= capacity;
        int cls = sizeClass(capacity);
        if (capacity <= RETAIN_LIMIT && cls < free.length && free[cls].size() < retainPerClass
                && capacity == MIN_SIZE << cls) {
            free[cls].addFirst(b);
            freeBytes += capacity;
        }
    }

    /**
     * Lends a larger buffer holding the {@code length} bytes of {@code old} from {@code from}, and
     * returns {@code old} to the pool.
     */
    public ByteBuffer grow(ByteBuffer old, int from, int length, int newMinimum) {
        ByteBuffer b = acquire(newMinimum);
        b.put(0, old, from, length);
        release(old);
        return b;
    }

    /** Buffers currently lent out. */
    public int lentCount() {
        return lentCount;
    }

    /** Bytes currently lent out. */
    public long lentBytes() {
        return lentBytes;
    }

    /** Bytes kept in the free lists for reuse. */
    public long freeBytes() {
        return freeBytes;
    }

    /** The largest buffer, in bytes, this pool keeps size classes for. */
    public int maxBufferSize() {
        return maxBufferSize;
    }

    /** Drops every free buffer so that its native memory can be reclaimed. */
    public void clear() {
        for (ArrayDeque<ByteBuffer> q : free) {
            q.clear();
        }
        freeBytes = 0;
    }
}
