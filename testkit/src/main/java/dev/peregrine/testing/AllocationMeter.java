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

    /**
     * Bytes a transport's loop allocates per wake-up that are not Peregrine's, so an "allocates
     * nothing" test may allow them per wake-up while holding Peregrine's own code to nothing:
     * <ul>
     *   <li>{@code nio}: the JDK's {@code EPollSelectorImpl.processEvents} (17 and 25) finds each ready key
     *       in a {@code HashMap<Integer, SelectionKeyImpl>} by its file descriptor, and
     *       {@code Integer.valueOf} boxes descriptors above 127 into 16-byte objects. A bare selector
     *       measured 0 B per {@code select} at fd 3 and 16 B at fd 200; a test JVM that has opened
     *       enough files (its class path alone holds dozens) gives its sockets such descriptors.</li>
     *   <li>{@code io_uring}: Netty 4.2.18's {@code IoUringIoHandler.run} passes its completion callback
     *       as {@code this::handle}, a 16-byte object per wake-up unless the JIT eliminates it.</li>
     *   <li>{@code epoll}: nothing.</li>
     * </ul>
     *
     * @param transport a transport's name, as {@code Transports.names()} or {@code Transport.name()} give it
     */
    public static long notOursPerWakeup(String transport) {
        switch (transport.toLowerCase(java.util.Locale.ROOT)) {
            case "nio":
            case "io_uring":
                return 16;
            default:
                return 0;
        }
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
