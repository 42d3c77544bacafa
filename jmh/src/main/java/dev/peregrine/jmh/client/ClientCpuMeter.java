package dev.peregrine.jmh.client;

import java.lang.management.ManagementFactory;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The client side's CPU per request in a benchmark whose server runs in the same JVM: the process's CPU
 * time minus the CPU time of the threads the server started (its loops), over a measurement iteration,
 * divided by the requests made. What is left is the benchmark thread, the client's own threads (loops,
 * executors, selector threads) and the JVM's collector and compiler threads: a client that allocates
 * pays for its garbage here, as it would in production.
 * <pre>
 *   serverThreads = threads alive after the server started that were not before
 *   ns/request    = (process CPU delta - serverThreads' CPU delta) / requests
 * </pre>
 * Thread: the benchmark thread.
 */
final class ClientCpuMeter {
    private final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private final Set<Long> serverThreads = new HashSet<>();
    private long processStart;
    private long serverStart;
    private long requestsStart;

    /** Starts {@code server} (returning it) and notes the threads it started as the server's. */
    <T> T startServer(Supplier<T> server) {
        Set<Long> before = ids();
        T s = server.get();
        for (long id : ids()) {
            if (!before.contains(id)) {
                serverThreads.add(id);
            }
        }
        return s;
    }

    /** The start of a measurement: {@code requests} is the count so far. */
    void begin(long requests) {
        processStart = os.getProcessCpuTime();
        serverStart = serverCpu();
        requestsStart = requests;
    }

    /** Prints the client's CPU per request since {@link #begin}, labelled {@code what}. */
    void end(String what, long requests) {
        long process = os.getProcessCpuTime() - processStart;
        long server = serverCpu() - serverStart;
        long n = requests - requestsStart;
        System.out.printf(Locale.ROOT, "%n  client CPU %s: %d ns/request (process %d ms - server loops %d ms, %d requests)%n",
                what, n == 0 ? -1 : (process - server) / n, process / 1_000_000, server / 1_000_000, n);
    }

    private long serverCpu() {
        long sum = 0;
        for (long id : serverThreads) {
            long t = threads.getThreadCpuTime(id);
            if (t > 0) {
                sum += t;
            }
        }
        return sum;
    }

    private static Set<Long> ids() {
        Set<Long> ids = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            ids.add(t.getId());
        }
        return ids;
    }
}
