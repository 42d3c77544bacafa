package dev.peregrine.server;

import dev.peregrine.Metrics;
import dev.peregrine.ServerEngine;
import dev.peregrine.buffer.BufferPool;
import dev.peregrine.h2.Http2Counters;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopMetrics;
import dev.peregrine.route.Router;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Fills the API's {@link Metrics} from the loops: each loop's {@link LoopMetrics} and pool, and what
 * its {@link ServerLoop} keeps (HTTP/2's counters, the request-duration series, the router that names
 * their routes). Plain loads of counters the loops write, so a snapshot under load may lag a few
 * requests. Thread: any.
 */
public final class MetricsReader {
    private MetricsReader() {
    }

    /** The snapshot of {@code loops}, summed. */
    public static Metrics read(List<LoopContext> loops) {
        long[] v = new long[Metrics.LOOP_COUNTS];
        long[] byStatus = new long[LoopMetrics.STATUS_SLOTS];
        for (LoopContext ctx : loops) {
            LoopMetrics m = ctx.metrics();
            BufferPool pool = ctx.pool();
            // The order Metrics documents (Metrics.LOOP_COUNTS values).
            long[] add = {m.accepted, m.closed, m.requests, m.rejected, m.handlerErrors, m.bytesIn, m.bytesOut,
                    m.acceptPauses, m.readPauses, m.blockedLoopWarnings, pool.lentCount(), pool.lentBytes(),
                    pool.freeBytes(), m.timeouts[LoopMetrics.TIMEOUT_HEADER], m.timeouts[LoopMetrics.TIMEOUT_BODY],
                    m.timeouts[LoopMetrics.TIMEOUT_IDLE], m.timeouts[LoopMetrics.TIMEOUT_WRITE],
                    m.timeouts[LoopMetrics.TIMEOUT_DRAIN], m.proxyUntrusted, m.proxyMalformed,
                    m.agedConnections, m.sendfileBytes, m.busyLoopWarnings};
            for (int i = 0; i < v.length; i++) {
                v[i] += add[i];
            }
            for (int i = 0; i < byStatus.length; i++) {
                byStatus[i] += m.rejectedByStatus[i];
            }
        }
        SortedMap<Integer, long[]> durations = new TreeMap<>();
        Router router = null;
        long[] http2 = new long[2 + Metrics.HTTP2_DEFENCES.size()];
        for (LoopContext ctx : loops) {
            ServerLoop server = ServerLoop.of(ctx);
            if (server == null) {
                continue;
            }
            Http2Counters h2 = server.http2Counters();
            if (h2 != null) {
                http2[0] += h2.streams;
                http2[1] += h2.connectionErrors;
                long[] d = h2.defences();
                for (int k = 0; k < d.length; k++) {
                    http2[2 + k] += d[k];
                }
            }
            router = server.router();
            RequestDurations d = server.durations();
            if (d == null) {
                continue;
            }
            for (int s = 0, n = d.size(); s < n; s++) {
                d.addTo(s, durations.computeIfAbsent(d.key(s), k -> new long[RequestDurations.STRIDE]));
            }
        }
        List<ServerEngine.DurationSeries> series = new ArrayList<>(durations.size());
        int buckets = RequestDurations.STRIDE - 1;
        for (Map.Entry<Integer, long[]> e : durations.entrySet()) {
            int key = e.getKey();
            int route = RequestDurations.route(key);
            String pattern = route < 0 || router == null ? "" : router.routePattern(route);
            long[] d = e.getValue();
            series.add(new ServerEngine.DurationSeries(pattern, RequestDurations.method(key), RequestDurations.status(key),
                    java.util.Arrays.copyOf(d, buckets), d[buckets]));
        }
        return new ServerEngine.Counts(v, byStatus, http2, RequestDurations.BOUNDS, series).metrics();
    }
}
