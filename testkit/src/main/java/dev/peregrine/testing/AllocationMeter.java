package dev.peregrine.testing;

import java.lang.management.ManagementFactory;

/**
 * Bytes the current thread allocates running a piece of work, for "allocates nothing" tests.
 *
 * <p>The work runs once to warm up, then {@code rounds} times measured, and the fewest bytes of any
 * round count: a one-off (a JIT transition, a class initialised late) shows in one round, while
 * allocation per call shows in every round, so the least is what the work itself costs. Thread: the
 * caller's.
 */
public final class AllocationMeter {
    private AllocationMeter() {
    }

    /** Bytes thread {@code threadId} has allocated so far (for a test whose module does not read {@code jdk.management}). */
    public static long allocatedBytes(long threadId) {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getThreadAllocatedBytes(threadId);
    }

    /** The least the current thread allocated in one of {@code rounds} runs of {@code work}, bytes. */
    public static long leastAllocated(int rounds, Runnable work) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        work.run();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < rounds; i++) {
            long before = mx.getThreadAllocatedBytes(id);
            work.run();
            least = Math.min(least, mx.getThreadAllocatedBytes(id) - before);
        }
        return least;
    }
}
