package dev.peregrine.micrometer;

import dev.peregrine.Metrics;
import dev.peregrine.Server;
import dev.peregrine.metrics.MetricSink;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Binds a server's meters to a Micrometer {@link MeterRegistry}: the same meters, names, units and
 * tags as the server's Prometheus endpoint ({@code Metrics.describe}), so a Micrometer
 * Prometheus registry exposes the same families.
 *
 * <pre>{@code
 * new PeregrineMetrics(server).bindTo(registry);
 * }</pre>
 *
 * <p>Micrometer reads each meter on its own; one {@link Server#metrics()} snapshot serves all the
 * meters read within {@code snapshotAge} (default 1 s), so a scrape sums the loops' counters once.
 * The meters are the ones the server describes at bind time (every rejection status the server answers
 * on its own is among them). Request-duration histograms ({@code http.server.request.duration}, with
 * {@code requestDurations} on) are bound as {@link FunctionTimer}s (count and total time) per route,
 * method and status: at bind time for the series that exist, and for a series that appears later, at
 * the first read of the binder's meters after it appeared (so from the next scrape on). Micrometer's
 * function timers carry no buckets; the server's own Prometheus endpoint has them.
 * Thread: {@link #bindTo} on any thread; the meters are read on the registry's threads, never on a
 * loop, and take a lock of this binder only.
 */
public final class PeregrineMetrics implements MeterBinder {
    private final Supplier<Metrics> source;
    private final long snapshotAgeNanos;
    private Map<String, Double> values = Map.of();
    private long takenNanos;
    private boolean taken;
    private MeterRegistry registry;
    /** Keys of the duration series registered as timers. */
    private final Set<String> timers = new HashSet<>();

    /** Binds {@code server}'s meters, with snapshots reused for up to one second. */
    public PeregrineMetrics(Server server) {
        this(Objects.requireNonNull(server, "server")::metrics, Duration.ofSeconds(1));
    }

    /**
     * Binds the meters of {@code source} ({@code server::metrics}), taking a new snapshot when the last
     * one is older than {@code snapshotAge} ({@link Duration#ZERO}: at every read).
     */
    public PeregrineMetrics(Supplier<Metrics> source, Duration snapshotAge) {
        this.source = Objects.requireNonNull(source, "source");
        if (snapshotAge.isNegative()) {
            throw new IllegalArgumentException("snapshotAge must not be negative: " + snapshotAge);
        }
        this.snapshotAgeNanos = snapshotAge.toNanos();
    }

    /**
     * Registers the meters. Micrometer holds a meter's state object weakly; here the meter's function
     * holds this binder (and so the source) strongly, so the meters live as long as the registry keeps
     * them, whether or not the caller keeps this binder.
     */
    @Override
    public void bindTo(MeterRegistry registry) {
        synchronized (this) {
            this.registry = registry;
        }
        source.get().describe(new MetricSink() {
            @Override
            public void counter(String name, String unit, String help, long value, String... labels) {
                String key = key(name, labels);
                FunctionCounter.builder(name, source, s -> read(key))
                        .description(help).baseUnit(baseUnit(unit)).tags(Tags.of(labels)).register(registry);
            }

            @Override
            public void gauge(String name, String unit, String help, long value, String... labels) {
                String key = key(name, labels);
                Gauge.builder(name, source, s -> read(key)).strongReference(true)
                        .description(help).baseUnit(baseUnit(unit)).tags(Tags.of(labels)).register(registry);
            }

            @Override
            public void histogram(String name, String unit, String help, double[] bounds, long[] counts, double sum,
                                  String... labels) {
                synchronized (PeregrineMetrics.this) {
                    registerTimer(name, help, labels);
                }
            }
        });
    }

    /** Registers the duration series as a timer once. Caller holds this binder's lock. */
    private void registerTimer(String name, String help, String... labels) {
        String key = key(name, labels);
        if (registry == null || !timers.add(key)) {
            return;
        }
        FunctionTimer.builder(name, source, s -> (long) read(key + "\u0000count"), s -> read(key + "\u0000sum"), TimeUnit.SECONDS)
                .description(help).tags(Tags.of(labels)).register(registry);
    }

    /** Micrometer's base unit: bytes and seconds have one; a count of things ({@code {connection}}) has none. */
    static String baseUnit(String unit) {
        switch (unit) {
            case "By":
                return "bytes";
            case "s":
                return "seconds";
            default:
                return null;
        }
    }

    private synchronized double read(String key) {
        long now = System.nanoTime();
        if (!taken || now - takenNanos >= snapshotAgeNanos) {
            Map<String, Double> fresh = new HashMap<>();
            source.get().describe(new MetricSink() {
                @Override
                public void counter(String name, String unit, String help, long value, String... labels) {
                    fresh.put(key(name, labels), (double) value);
                }

                @Override
                public void gauge(String name, String unit, String help, long value, String... labels) {
                    fresh.put(key(name, labels), (double) value);
                }

                @Override
                public void histogram(String name, String unit, String help, double[] bounds, long[] counts, double sum,
                                      String... labels) {
                    long count = 0;
                    for (long c : counts) {
                        count += c;
                    }
                    String key = key(name, labels);
                    fresh.put(key + "\u0000count", (double) count);
                    fresh.put(key + "\u0000sum", sum);
                    registerTimer(name, help, labels); // a series that appeared since bindTo
                }
            });
            values = fresh;
            takenNanos = now;
            taken = true;
        }
        Double v = values.get(key);
        return v == null ? 0 : v;
    }

    private static String key(String name, String... labels) {
        return labels.length == 0 ? name : name + "\u0000" + String.join("\u0000", labels);
    }
}
