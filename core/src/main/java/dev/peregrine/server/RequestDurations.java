package dev.peregrine.server;

import dev.peregrine.http1.Methods;

/**
 * One loop's request-duration histograms ({@code http.server.request.duration}, OpenTelemetry's
 * HTTP semantic conventions): one series per route, method and status, each with OpenTelemetry's
 * default bucket bounds (seconds) and the sum. Written by the loop thread only, with plain stores, no
 * lock; read by any thread as a monitoring snapshot, merged over the loops by {@code Metrics}.
 *
 * <pre>
 *   series key (int):  route + 1 (15 bits, 0 = no route matched) | method (4 bits) | status (10 bits)
 *   index:  open addressing, key -&gt; series number + 1 (0: empty slot), at most half full
 *   data:   series s at [s * STRIDE, (s + 1) * STRIDE):
 *           +-----------+-----------+-----+--------------+-----------+
 *           | &le; 0.005 s | &le; 0.01 s | ... | &le; 10 s, +Inf | sum (ns)  |   counts per bucket, not cumulative
 *           +-----------+-----------+-----+--------------+-----------+
 * </pre>
 * A series is made the first time its key is seen on this loop (arrays grow by doubling then, and are
 * published through the volatile {@code published}); after that, recording is a probe of the index,
 * a few compares and two increments: no allocation. The number of series is bounded by routes &times;
 * methods &times; statuses.
 *
 * <p>Thread: {@link #record} on the owning loop; {@link #size}, {@link #key} and {@link #data} on any.
 */
public final class RequestDurations {
    /** OpenTelemetry's default bucket bounds for {@code http.server.request.duration}, seconds. */
    public static final double[] BOUNDS = {0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10};
    /** Buckets (the bounds and +Inf), then the sum. */
    public static final int STRIDE = BOUNDS.length + 2;
    /** Method number of a method outside the usual nine ({@code _OTHER} in the conventions). */
    public static final int OTHER_METHOD = Methods.COUNT;
    private static final long[] BOUNDS_NANOS = new long[BOUNDS.length];

    static {
        for (int i = 0; i < BOUNDS.length; i++) {
            BOUNDS_NANOS[i] = Math.round(BOUNDS[i] * 1e9);
        }
    }

    private int[] index = new int[64];
    private int[] keys = new int[32];
    private long[] data = new long[32 * STRIDE];
    private int size;
    /** Series visible to readers; written after their arrays (a release), read first (an acquire). */
    private volatile int published;

    /** The series key of a route number (-1: none matched), a method id and a status. */
    static int key(int route, int methodId, int status) {
        int m = methodId < 0 ? OTHER_METHOD : methodId;
        return ((route + 1) << 14) | (m << 10) | (status & 0x3FF);
    }

    /** Route number of a key, -1 when no route matched. */
    public static int route(int key) {
        return (key >>> 14) - 1;
    }

    /** Method of a key as the conventions name it: the method, or {@code _OTHER}. */
    public static String method(int key) {
        int m = (key >>> 10) & 0xF;
        return m == OTHER_METHOD ? "_OTHER" : Methods.name(m);
    }

    /** Status of a key. */
    public static int status(int key) {
        return key & 0x3FF;
    }

    /**
     * A timed request of series {@code key} (status still 0) was answered with {@code status} after
     * {@code nanos}: counted in the loop's histograms when they are on, and reported to JFR when it was
     * at least {@code slowHandlerThreshold} and a recording wants {@code dev.peregrine.SlowHandler}.
     * Thread: the loop.
     */
    static void requestDone(ServerLoop ctx, int key, int status, long nanos) {
        if (ctx.durations != null) {
            ctx.durations.record(key | (status & 0x3FF), nanos);
        }
        if (nanos >= ctx.config.slowHandlerThresholdNanos() && dev.peregrine.jfr.PeregrineEvents.slowHandlers()) {
            int route = route(key);
            dev.peregrine.jfr.PeregrineEvents.slowHandler(route < 0 ? "" : ctx.router.routePattern(route), method(key),
                    status, nanos);
        }
    }

    /** Counts one request of series {@code key} that took {@code nanos}. Thread: the loop. */
    void record(int key, long nanos) {
        int s = find(key);
        int base = s * STRIDE;
        int b = 0;
        while (b < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[b]) {
            b++;
        }
        long[] d = data;
        d[base + b]++;
        d[base + STRIDE - 1] += Math.max(0, nanos);
    }

    private int find(int key) {
        int mask = index.length - 1;
        int h = (key * 0x9E3779B9) >>> 16;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            int v = index[i];
            if (v == 0) {
                return add(key, i);
            }
            if (keys[v - 1] == key) {
                return v - 1;
            }
        }
    }

    /** A new series at free index slot {@code slot}: the only place that allocates, once per series. */
    private int add(int key, int slot) {
        int s = size;
        if (s == keys.length) {
            keys = java.util.Arrays.copyOf(keys, s * 2);
            data = java.util.Arrays.copyOf(data, s * 2 * STRIDE);
        }
        keys[s] = key;
        index[slot] = s + 1;
        size = s + 1;
        if (size * 2 > index.length) {
            int[] bigger = new int[index.length * 2];
            int mask = bigger.length - 1;
            for (int j = 0; j < size; j++) {
                int i = ((keys[j] * 0x9E3779B9) >>> 16) & mask;
                while (bigger[i] != 0) {
                    i = (i + 1) & mask;
                }
                bigger[i] = j + 1;
            }
            index = bigger;
        }
        published = size;
        return s;
    }

    /** Series recorded so far. Thread: any (read this first, then {@link #key} and {@link #data} below it). */
    public int size() {
        return published;
    }

    /** The key of series {@code s} &lt; {@link #size()}. */
    public int key(int s) {
        return keys[s];
    }

    /** Adds series {@code s}'s buckets and sum (ns) into {@code into[0, STRIDE)}. */
    public void addTo(int s, long[] into) {
        long[] d = data;
        for (int i = 0; i < STRIDE; i++) {
            into[i] += d[s * STRIDE + i];
        }
    }
}
