package dev.peregrine.examples;

import dev.peregrine.Server;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * The text of {@code GET /metrics} in the plaintext app: the server's counters, heap in use and
 * direct-buffer memory, one {@code name=value} per line. An operations aid for the soak and census
 * scripts; it allocates, so it is not for the benchmark path.
 */
final class MetricsText {
    private MetricsText() {
    }

    static String of(Server server) {
        StringBuilder b = new StringBuilder(512);
        if (server != null) {
            for (String pair : server.metrics().toString().split(" ")) {
                b.append(pair).append('\n');
            }
        }
        Runtime rt = Runtime.getRuntime();
        b.append("heapUsed=").append(rt.totalMemory() - rt.freeMemory()).append('\n');
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                b.append("directUsed=").append(pool.getMemoryUsed()).append('\n');
                b.append("directCount=").append(pool.getCount()).append('\n');
            }
        }
        return b.toString();
    }
}
