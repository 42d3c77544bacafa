package dev.peregrine.metrics;

/**
 * Receives meters one sample at a time, as a source describes them. The samples of one meter (same
 * {@code name}, different labels) come one after another.
 *
 * <ul>
 *   <li>{@code name}: dotted, OpenTelemetry style, e.g. {@code peregrine.connections.accepted};</li>
 *   <li>{@code unit}: UCUM as OpenTelemetry writes it: {@code By} (bytes), {@code s}, {@code 1}, or an
 *       annotation such as {@code {connection}} (a count of things, no unit suffix);</li>
 *   <li>{@code labels}: alternating key and value, keys dotted too
 *       ({@code "http.response.status_code", "400"}); an even count.</li>
 * </ul>
 *
 * Thread: whichever thread asked the source to describe itself; a sink is not shared between threads.
 */
public interface MetricSink {
    /** A monotonic count since start. */
    void counter(String name, String unit, String help, long value, String... labels);

    /** A level that goes up and down. */
    void gauge(String name, String unit, String help, long value, String... labels);

    /**
     * A histogram with fixed buckets: {@code counts[i]} observations fell in bucket {@code i} (at most
     * {@code bounds[i]}, above the bound before; not cumulative), the last one above every bound
     * ({@code counts.length == bounds.length + 1}); {@code sum} adds every observation, in {@code unit}.
     */
    void histogram(String name, String unit, String help, double[] bounds, long[] counts, double sum, String... labels);
}
