package dev.peregrine.jmh.server;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * {@link Http2ServerBenchmark}'s requests timed by the thread's CPU time instead of the wall clock, for
 * a machine shared with other work (a wall-clock average there measures the other work too). Warms
 * up, then prints the median, lowest and highest of seven rounds in CPU ns per request.
 * <pre>
 *   java -cp jmh/target/benchmarks.jar dev.peregrine.jmh.server.Http2CpuTime [minimal|h2load|h2load152] [getIndexed|getIndexed100]
 *   -Dops=300000 requests per round (default)
 * </pre>
 * Compare builds by alternating their jars, several runs each; a quiet machine and JMH remain the
 * reference.
 */
public final class Http2CpuTime {
    private Http2CpuTime() {
    }

    public static void main(String[] args) throws IOException {
        Http2ServerBenchmark b = new Http2ServerBenchmark();
        b.fields = args.length > 0 ? args[0] : "h2load";
        boolean hundred = !(args.length > 1 && args[1].equals("getIndexed"));
        int perCall = hundred ? 100 : 1;
        int calls = Integer.getInteger("ops", 300_000) / perCall;
        b.setUp();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sink = 0;
        for (int i = 0; i < calls * 4; i++) { // warm-up: the JIT settles first
            sink += hundred ? b.getIndexed100() : b.getIndexed();
        }
        double[] ns = new double[7];
        for (int k = 0; k < ns.length; k++) {
            long start = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                sink += hundred ? b.getIndexed100() : b.getIndexed();
            }
            ns[k] = (threads.getCurrentThreadCpuTime() - start) / (double) (calls * perCall);
        }
        b.tearDown();
        Arrays.sort(ns);
        System.out.printf("%s %s: CPU ns/request median %.1f, lowest %.1f, highest %.1f (%d)%n",
                hundred ? "getIndexed100" : "getIndexed", b.fields, ns[3], ns[0], ns[6], sink & 1);
    }
}
