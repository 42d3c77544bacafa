package dev.peregrine.examples;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Latencies in microseconds, counted in log-linear buckets (the HdrHistogram layout, in a few lines):
 * values below 1024 µs each have their own bucket; above, every power of two is split into 512
 * buckets, so a percentile is within 0.2 % of the value recorded. Up to 2^40 µs (12 days).
 * <pre>
 *   index:  0 .. 1023            | 1024 .. 1535        | 1536 .. 2047        | ...
 *   value:  0 .. 1023 µs (exact) | 1024 .. 2047, by 2  | 2048 .. 4095, by 4  | ...
 * </pre>
 * Thread: any ({@link #record} is one atomic increment).
 */
final class LatencyHistogram {
    private static final int LINEAR = 1024;
    private static final int SUB = 512;
    private static final int SHIFT_MAX = 30;
    private final AtomicLongArray counts = new AtomicLongArray(LINEAR + SHIFT_MAX * SUB);

    void record(long micros) {
        counts.incrementAndGet(index(Math.max(0, micros)));
    }

    static int index(long v) {
        if (v < LINEAR) {
            return (int) v;
        }
        int shift = Math.min(63 - Long.numberOfLeadingZeros(v) - 9, SHIFT_MAX); // v >> shift is in [512, 1024)
        long sub = Math.min(v >> shift, 2 * SUB - 1) - SUB;
        return LINEAR + (shift - 1) * SUB + (int) sub;
    }

    /** The highest value that lands in bucket {@code i}. */
    static long valueAt(int i) {
        if (i < LINEAR) {
            return i;
        }
        int shift = (i - LINEAR) / SUB + 1;
        long sub = (i - LINEAR) % SUB + SUB;
        return ((sub + 1) << shift) - 1;
    }

    long total() {
        long n = 0;
        for (int i = 0; i < counts.length(); i++) {
            n += counts.get(i);
        }
        return n;
    }

    /** The value at {@code percentile} (0-100) of what was recorded, or 0 when nothing was. */
    long percentile(double percentile) {
        long total = total();
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(total * percentile / 100.0));
        long seen = 0;
        for (int i = 0; i < counts.length(); i++) {
            seen += counts.get(i);
            if (seen >= rank) {
                return valueAt(i);
            }
        }
        return valueAt(counts.length() - 1);
    }
}
