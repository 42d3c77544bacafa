package dev.peregrine;

import dev.peregrine.metrics.MetricSink;

import java.util.List;

/**
 * A read-only snapshot of a server's counters ({@link Server#metrics()}), summed over all loops at
 * one moment. Each loop's values are read with plain loads while it runs, so a snapshot taken under
 * load may be a few requests behind. Counters run from start and are never reset, except
 * {@code open}, {@code lentBuffers}, {@code lentBytes} and {@code freeBytes}, which are levels.
 *
 * <p>The server fills it ({@link ServerEngine.Counts}): this class only holds and names the values.
 * The counts of the loops arrive in the order {@code accepted, closed, requests, rejected, handlerErrors,
 * bytesIn, bytesOut, acceptPauses, readPauses, blockedLoopWarnings, lentBuffers, lentBytes, freeBytes,
 * headerTimeouts, bodyTimeouts, idleTimeouts, writeTimeouts, drainTimeouts, proxyUntrusted, proxyMalformed,
 * agedConnections, sendfileBytes, busyLoopWarnings} ({@link #LOOP_COUNTS} of them); HTTP/2's as
 * {@code streams, connectionErrors} then {@link #HTTP2_DEFENCES}.
 *
 * <p>Thread: any; immutable.
 */
public final class Metrics {
    /** How many loop counts {@link ServerEngine.Counts#loops()} holds. */
    public static final int LOOP_COUNTS = 23;

    public final long accepted;
    /** Connections open now. */
    public final long open;
    public final long closed;
    public final long requests;
    /** Error responses of our own (400, 408, 413, 414, 431, 501, 505...), each followed by a close. */
    public final long rejected;
    public final long handlerErrors;
    public final long bytesIn;
    public final long bytesOut;
    /** Of {@code bytesOut}, the bytes sent straight from files to sockets ({@code sendfile}, zero-copy). */
    public final long sendfileBytes;
    /** Pooled buffers lent to connections right now (0 when every connection is idle). */
    public final long lentBuffers;
    public final long lentBytes;
    /** Pooled bytes kept free for reuse. */
    public final long freeBytes;
    /** Request heads that took longer than the header timeout (answered 408). */
    public final long headerTimeouts;
    /** Bodies that stopped arriving (answered 408). */
    public final long bodyTimeouts;
    /** Keep-alive connections closed for idleness. */
    public final long idleTimeouts;
    /** Connections closed because the peer stopped reading our output. */
    public final long writeTimeouts;
    /** Closing connections whose peer did not close after our FIN. */
    public final long drainTimeouts;
    /** Times a loop stopped accepting because maxConnections were open. */
    public final long acceptPauses;
    /**
     * Times a connection stopped reading (backpressure) because the peer was not taking its
     * responses ({@code maxPendingOutput}, {@code maxPipelinedRequests}) or because pipelined input
     * piled up behind a request handled off the loop.
     */
    public final long readPauses;
    /** WARNING lines logged because an inline handler held a loop past {@code blockedLoopWarning}. */
    public final long blockedLoopWarnings;
    /** WARNING lines logged because inline handlers held a loop past {@code busyLoopWarning}'s share of an interval. */
    public final long busyLoopWarnings;
    /** Connections retired for {@code maxConnectionAge}: answered with {@code Connection: close}, or closed idle. */
    public final long agedConnections;
    /** Connections closed because a PROXY-protocol listener does not trust their peer. */
    public final long proxyUntrusted;
    /** Connections closed because their PROXY header was malformed or too long. */
    public final long proxyMalformed;
    private final long[] rejectedByStatus;
    /** HTTP/2 streams opened (docs/http2.md). */
    public final long http2Streams;
    /** HTTP/2 connections ended by a connection error of theirs (GOAWAY with an error code). */
    public final long http2ConnectionErrors;
    /** How often each HTTP/2 defence fired, in the order of {@link #HTTP2_DEFENCES}. */
    private final long[] http2Defences;
    /** Request-duration series merged over the loops. */
    private final List<ServerEngine.DurationSeries> durations;
    private final double[] durationBounds;

    Metrics(ServerEngine.Counts c) {
        long[] v = c.loops();
        if (v.length != LOOP_COUNTS || c.http2().length != 2 + HTTP2_DEFENCES.size()) {
            throw new IllegalArgumentException("counts of the wrong shape");
        }
        this.durations = List.copyOf(c.durations());
        this.durationBounds = c.durationBounds().clone();
        long[] http2 = c.http2();
        this.http2Streams = http2[0];
        this.http2ConnectionErrors = http2[1];
        this.http2Defences = java.util.Arrays.copyOfRange(http2, 2, http2.length);
        int i = 0;
        accepted = v[i++];
        closed = v[i++];
        open = accepted - closed;
        requests = v[i++];
        rejected = v[i++];
        handlerErrors = v[i++];
        bytesIn = v[i++];
        bytesOut = v[i++];
        acceptPauses = v[i++];
        readPauses = v[i++];
        blockedLoopWarnings = v[i++];
        lentBuffers = v[i++];
        lentBytes = v[i++];
        freeBytes = v[i++];
        headerTimeouts = v[i++];
        bodyTimeouts = v[i++];
        idleTimeouts = v[i++];
        writeTimeouts = v[i++];
        drainTimeouts = v[i++];
        proxyUntrusted = v[i++];
        proxyMalformed = v[i++];
        agedConnections = v[i++];
        sendfileBytes = v[i++];
        busyLoopWarnings = v[i];
        this.rejectedByStatus = c.rejectedByStatus().clone();
    }

    /**
     * The names of the HTTP/2 defences, in the order the server counts them: what {@link #http2Defence}
     * takes and the values of the {@code peregrine.http2.defence} label.
     */
    public static final List<String> HTTP2_DEFENCES = List.of("refused_stream", "rapid_reset",
            "server_reset", "continuation_flood", "settings_flood", "ping_flood", "empty_frames", "header_list_too_large",
            "stalled_write");

    /**
     * How often the HTTP/2 defence {@code kind} fired ({@code refused_stream}, {@code rapid_reset},
     * {@code server_reset}, {@code continuation_flood}, {@code settings_flood}, {@code ping_flood},
     * {@code empty_frames}, {@code header_list_too_large}, {@code stalled_write}; docs/http2.md).
     */
    public long http2Defence(String kind) {
        int i = HTTP2_DEFENCES.indexOf(kind);
        if (i < 0) {
            throw new IllegalArgumentException("no HTTP/2 defence named " + kind);
        }
        return http2Defences[i];
    }

    /**
     * Requests timed in the {@code http.server.request.duration} histogram for {@code route} (the
     * pattern as registered, {@code ""} for the router's own answers), {@code method} and {@code status};
     * 0 when none, or when {@code requestDurations} is off.
     */
    public long requestDurationCount(String route, String method, int status) {
        long n = 0;
        for (ServerEngine.DurationSeries d : durations) {
            if (d.route().equals(route) && d.method().equals(method) && d.status() == status) {
                for (long b : d.buckets()) {
                    n += b;
                }
            }
        }
        return n;
    }

    /** Emits the request-duration histograms (called by {@link MetricsDescription}). */
    void describeDurations(MetricSink sink) {
        for (ServerEngine.DurationSeries d : durations) {
            sink.histogram("http.server.request.duration", "s", "Duration of HTTP server requests, from dispatch to the "
                            + "response encoded.", durationBounds, d.buckets().clone(), d.sumNanos() / 1e9,
                    "http.route", d.route(), "http.request.method", d.method(),
                    "http.response.status_code", Integer.toString(d.status()));
        }
    }

    /** Error responses of our own with {@code status}. */
    public long rejected(int status) {
        return status >= 0 && status < rejectedByStatus.length ? rejectedByStatus[status] : 0;
    }

    /**
     * Writes these counters to {@code sink} under their exposition names (OpenTelemetry style; the
     * table is in {@code MetricsDescription}): what the Prometheus endpoint and the
     * {@code peregrine-micrometer} binder read.
     */
    public void describe(MetricSink sink) {
        MetricsDescription.describe(this, sink);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        b.append("accepted=").append(accepted).append(" open=").append(open).append(" closed=").append(closed)
                .append(" requests=").append(requests).append(" rejected=").append(rejected);
        for (int i = 0; i < rejectedByStatus.length; i++) {
            if (rejectedByStatus[i] != 0) {
                b.append(" rejected").append(i).append('=').append(rejectedByStatus[i]);
            }
        }
        return b.append(" handlerErrors=").append(handlerErrors).append(" bytesIn=").append(bytesIn)
                .append(" bytesOut=").append(bytesOut).append(" sendfileBytes=").append(sendfileBytes).append(" headerTimeouts=").append(headerTimeouts)
                .append(" bodyTimeouts=").append(bodyTimeouts).append(" idleTimeouts=").append(idleTimeouts)
                .append(" writeTimeouts=").append(writeTimeouts).append(" drainTimeouts=").append(drainTimeouts)
                .append(" acceptPauses=").append(acceptPauses).append(" readPauses=").append(readPauses)
                .append(" blockedLoopWarnings=").append(blockedLoopWarnings).append(" busyLoopWarnings=").append(busyLoopWarnings).append(" proxyUntrusted=").append(proxyUntrusted).append(" proxyMalformed=").append(proxyMalformed)
                .append(" agedConnections=").append(agedConnections)
                .append(" lentBuffers=").append(lentBuffers)
                .append(" lentBytes=").append(lentBytes).append(" freeBytes=").append(freeBytes).toString();
    }
}
