package dev.peregrine.transport;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * The server-wide cap on open connections ({@code LoopConfig.maxConnections}), shared by all loops
 * of one server: one {@link AtomicInteger} counts every open connection, whichever loop accepted it.
 * A global count (rather than a fixed share per loop) lets a busy loop use capacity an idle one does
 * not need; its cost is one CAS per accept and one decrement per close, never per request.
 *
 * <p>Protocol, per accepting loop {@code i}:
 * <pre>
 *   accept:  tryAcquire() ? accept one : (stop accepting; if pause(i) then resume at once)
 *   close:   release()  -- decrements, then resumes every paused loop through its resumer
 * </pre>
 * {@link #pause} sets the loop's flag before re-reading the count and {@link #release} decrements
 * before reading the flags (all volatile), so a release racing with a pause is seen by at least one
 * side; the flag's compare-and-set makes exactly one of them resume the loop. A resumed loop accepts
 * again only as far as {@link #tryAcquire} allows, so waking several loops for one free slot is harmless.
 *
 * <p>Thread: any.
 */
public final class ConnectionLimit {
    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicIntegerArray paused;
    private final Runnable[] resumers;

    /**
     * @param max most connections open at once
     * @param loops number of loops that may pause
     */
    public ConnectionLimit(int max, int loops) {
        this.max = max;
        this.paused = new AtomicIntegerArray(loops);
        this.resumers = new Runnable[loops];
    }

    /** Sets what wakes loop {@code i} (it must run the resumption on that loop's thread). Before start. */
    public void resumer(int loop, Runnable resume) {
        resumers[loop] = resume;
    }

    /** Counts a connection about to be accepted, or returns false when the limit is reached. */
    public boolean tryAcquire() {
        while (true) {
            int n = open.get();
            if (n >= max) {
                return false;
            }
            if (open.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Counts a connection closed (or one acquired and then not accepted) and wakes paused loops. */
    public void release() {
        open.decrementAndGet();
        for (int i = 0; i < resumers.length; i++) {
            if (paused.get(i) != 0 && paused.compareAndSet(i, 1, 0) && resumers[i] != null) {
                resumers[i].run();
            }
        }
    }

    /**
     * Records that loop {@code i} stopped accepting. Returns true when a slot freed meanwhile and the
     * loop must resume itself now (no resumer will run for this pause).
     */
    public boolean pause(int loop) {
        paused.set(loop, 1);
        return open.get() < max && paused.compareAndSet(loop, 1, 0);
    }

    /** Connections counted open now. */
    public int open() {
        return open.get();
    }

    /** The limit. */
    public int max() {
        return max;
    }
}
