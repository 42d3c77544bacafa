import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * scripts/jmh-ab's driver (a single-file program: {@code java scripts/lib/InterleavedAB.java JAR_A JAR_B
 * METHOD PAIRS}): one benchmark method of {@code ServerTimingBenchmark} (Peregrine's side) from two
 * benchmark jars, each in a class loader of its own, in one JVM, run in alternating slices of 50 ms of
 * the thread's CPU time (ABBA order, the first quarter as warm-up). A shared machine's load falls on
 * both alike, and descheduling is not counted, where JMH's wall clock on a loaded machine varies by
 * more than the change under test. Prints each side's median ns per request (the method's
 * {@code @OperationsPerInvocation}) and the median and quartiles of the per-pair ratio B/A. Run it both
 * ways round (A/B and B/A) and take the square root of the ratio of the two medians: the second side of
 * a pair reads a few percent slower even with the same jar on both sides.
 */
public final class InterleavedAB {
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    public static void main(String[] a) throws Exception {
        Object[] sides = {load(a[0]), load(a[1])};
        int pairs = Integer.parseInt(a[3]);
        Method[] run = new Method[2];
        for (int s = 0; s < 2; s++) {
            run[s] = sides[s].getClass().getMethod(a[2]);
        }
        int opsPerCall = opsPerInvocation(run[0]);
        int calls = Math.max(1, 400 / opsPerCall);
        long slice = 50_000_000L;
        int warm = pairs / 4;
        double[][] ns = new double[2][pairs];
        for (int p = 0; p < pairs + warm; p++) {
            for (int s0 = 0; s0 < 2; s0++) {
                int s = (p & 1) == 0 ? s0 : 1 - s0; // ABBA order
                long c0 = MX.getCurrentThreadCpuTime();
                long ops = 0;
                long c;
                while ((c = MX.getCurrentThreadCpuTime()) - c0 < slice) {
                    for (int i = 0; i < calls; i++) {
                        run[s].invoke(sides[s]);
                    }
                    ops += (long) calls * opsPerCall;
                }
                if (p >= warm) {
                    ns[s][p - warm] = (c - c0) / (double) ops;
                }
            }
        }
        double[] ratio = new double[pairs];
        for (int p = 0; p < pairs; p++) {
            ratio[p] = ns[1][p] / ns[0][p];
        }
        System.out.printf("%s: A median %.1f ns/req, B median %.1f ns/req, B/A median %.3f (quartiles %.3f-%.3f), %d slice pairs%n",
                a[2], median(ns[0]), median(ns[1]), median(ratio), q(ratio, 0.25), q(ratio, 0.75), pairs);
        System.exit(0);
    }

    /** The method's {@code @OperationsPerInvocation} (read by name: the annotation is the jar's class), or 1. */
    static int opsPerInvocation(Method m) throws Exception {
        for (java.lang.annotation.Annotation an : m.getAnnotations()) {
            if (an.annotationType().getSimpleName().equals("OperationsPerInvocation")) {
                return (int) an.annotationType().getMethod("value").invoke(an);
            }
        }
        return 1;
    }

    static Object load(String jar) throws Exception {
        URLClassLoader l = new URLClassLoader(new URL[] {Path.of(jar).toUri().toURL()}, ClassLoader.getPlatformClassLoader());
        Class<?> c = l.loadClass("dev.peregrine.jmh.server.ServerTimingBenchmark");
        Object b = c.getConstructor().newInstance();
        c.getField("server").set(b, "peregrine");
        c.getMethod("setUp").invoke(b);
        c.getMethod("openClients").invoke(b);
        return b;
    }

    static double median(double[] v) {
        return q(v, 0.5);
    }

    static double q(double[] v, double f) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[(int) Math.min(s.length - 1, Math.round(f * (s.length - 1)))];
    }
}
