package dev.peregrine.metrics;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * The JVM's memory as OpenTelemetry names it (semantic conventions for JVM runtime metrics): heap
 * in use ({@code jvm.memory.used}, {@code jvm.memory.type=heap}) and direct buffers
 * ({@code jvm.buffer.memory.used} and {@code jvm.buffer.count}, {@code jvm.buffer.pool.name=direct}),
 * where the server's pooled memory lives. Reads MXBeans: allocates, takes no lock of ours; not for a
 * hot path. Thread: any.
 */
public final class JvmMetrics {
    private JvmMetrics() {
    }

    /** Writes the JVM's memory gauges to {@code sink}. */
    public static void describe(MetricSink sink) {
        sink.gauge("jvm.memory.used", "By", "Heap memory in use.",
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), "jvm.memory.type", "heap");
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                sink.gauge("jvm.buffer.memory.used", "By", "Memory used by direct buffers.",
                        pool.getMemoryUsed(), "jvm.buffer.pool.name", "direct");
                sink.gauge("jvm.buffer.count", "{buffer}", "Direct buffers allocated.",
                        pool.getCount(), "jvm.buffer.pool.name", "direct");
            }
        }
    }
}
