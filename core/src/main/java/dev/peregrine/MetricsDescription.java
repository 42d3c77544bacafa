package dev.peregrine;

import dev.peregrine.metrics.MetricSink;

/**
 * The one table of the server's meters: which {@link Metrics} field is exposed under which
 * name, unit and labels. The Prometheus endpoint ({@link Server.Builder#metricsEndpoint}) and the
 * {@code peregrine-micrometer} binder both read it, so the two cannot drift apart.
 *
 * <table>
 *   <caption>meters (Prometheus family names in brackets)</caption>
 *   <tr><th>name</th><th>kind</th><th>labels</th><th>from</th></tr>
 *   <tr><td>{@code peregrine.connections.accepted} [peregrine_connections_accepted_total]</td><td>counter</td><td></td><td>accepted</td></tr>
 *   <tr><td>{@code peregrine.connections.closed}</td><td>counter</td><td></td><td>closed</td></tr>
 *   <tr><td>{@code peregrine.connections.open}</td><td>gauge</td><td></td><td>open</td></tr>
 *   <tr><td>{@code peregrine.requests}</td><td>counter</td><td></td><td>requests</td></tr>
 *   <tr><td>{@code peregrine.rejected}</td><td>counter</td><td>{@code http.response.status_code}</td><td>rejected(status)</td></tr>
 *   <tr><td>{@code peregrine.handler.errors}</td><td>counter</td><td></td><td>handlerErrors</td></tr>
 *   <tr><td>{@code peregrine.network.io} [peregrine_network_io_bytes_total]</td><td>counter</td><td>{@code network.io.direction}: receive, transmit</td><td>bytesIn, bytesOut</td></tr>
 *   <tr><td>{@code peregrine.sendfile.io} [peregrine_sendfile_io_bytes_total]</td><td>counter</td><td></td><td>sendfileBytes</td></tr>
 *   <tr><td>{@code peregrine.timeouts}</td><td>counter</td><td>{@code peregrine.timeout}: header, body, idle, write, drain</td><td>*Timeouts</td></tr>
 *   <tr><td>{@code peregrine.accept.pauses}</td><td>counter</td><td></td><td>acceptPauses</td></tr>
 *   <tr><td>{@code peregrine.read.pauses}</td><td>counter</td><td></td><td>readPauses</td></tr>
 *   <tr><td>{@code peregrine.blocked_loop.warnings}</td><td>counter</td><td></td><td>blockedLoopWarnings</td></tr>
 *   <tr><td>{@code peregrine.busy_loop.warnings}</td><td>counter</td><td></td><td>busyLoopWarnings</td></tr>
 *   <tr><td>{@code peregrine.connections.aged}</td><td>counter</td><td></td><td>agedConnections</td></tr>
 *   <tr><td>{@code peregrine.http2.streams}</td><td>counter</td><td></td><td>http2Streams</td></tr>
 *   <tr><td>{@code peregrine.http2.connection_errors}</td><td>counter</td><td></td><td>http2ConnectionErrors</td></tr>
 *   <tr><td>{@code peregrine.http2.defences}</td><td>counter</td><td>{@code peregrine.http2.defence}: refused_stream, rapid_reset,
 *       server_reset, continuation_flood, settings_flood, ping_flood, empty_frames, header_list_too_large, stalled_write</td><td>http2Defence(kind)</td></tr>
 *   <tr><td>{@code peregrine.proxy.rejected}</td><td>counter</td><td>{@code peregrine.proxy.reason}: untrusted, malformed</td><td>proxyUntrusted, proxyMalformed</td></tr>
 *   <tr><td>{@code peregrine.buffers.lent}</td><td>gauge</td><td></td><td>lentBuffers</td></tr>
 *   <tr><td>{@code peregrine.buffer.memory} [peregrine_buffer_memory_bytes]</td><td>gauge</td><td>{@code peregrine.buffer.state}: lent, free</td><td>lentBytes, freeBytes</td></tr>
 * </table>
 *
 * With {@code requestDurations} on, {@code http.server.request.duration} [http_server_request_duration_seconds]
 * follows: a histogram per {@code http.route} (the pattern; {@code ""} for the router's own answers),
 * {@code http.request.method} ({@code _OTHER} for methods outside the usual nine) and
 * {@code http.response.status_code}, with OpenTelemetry's default buckets in seconds.
 */
final class MetricsDescription {
    private MetricsDescription() {
    }

    /** Statuses of the server's own rejections (parser, limits, header/body timeouts). */
    private static final int[] REJECTION_STATUSES = {400, 408, 413, 414, 431, 501, 505};

    static boolean isRejectionStatus(int status) {
        for (int s : REJECTION_STATUSES) {
            if (s == status) {
                return true;
            }
        }
        return false;
    }

    static void describe(Metrics m, MetricSink sink) {
        sink.counter("peregrine.connections.accepted", "{connection}", "Connections accepted.", m.accepted);
        sink.counter("peregrine.connections.closed", "{connection}", "Connections closed.", m.closed);
        sink.gauge("peregrine.connections.open", "{connection}", "Connections open now.", m.open);
        sink.counter("peregrine.requests", "{request}", "Requests handled (routed to a handler or answered by the router).", m.requests);
        String rejected = "Error responses of the server's own (bad input, limits, timeouts), each followed by a close.";
        for (int status = 100; status < 600; status++) {
            long n = m.rejected(status);
            // The statuses the server answers on its own are always present (0 until one happens), so
            // that rate() and alerts need no special case and a Micrometer binder sees a fixed set.
            if (n != 0 || isRejectionStatus(status)) {
                sink.counter("peregrine.rejected", "{response}", rejected, n,
                        "http.response.status_code", Integer.toString(status));
            }
        }
        sink.counter("peregrine.handler.errors", "{error}", "Handlers that threw or failed their completion.", m.handlerErrors);
        sink.counter("peregrine.network.io", "By", "Bytes read from and written to client sockets.", m.bytesIn,
                "network.io.direction", "receive");
        sink.counter("peregrine.network.io", "By", "Bytes read from and written to client sockets.", m.bytesOut,
                "network.io.direction", "transmit");
        sink.counter("peregrine.sendfile.io", "By", "Bytes sent straight from files to client sockets (sendfile), "
                + "part of the transmitted bytes.", m.sendfileBytes);
        String timeouts = "Connections a timeout ended (header and body are answered 408).";
        sink.counter("peregrine.timeouts", "{timeout}", timeouts, m.headerTimeouts, "peregrine.timeout", "header");
        sink.counter("peregrine.timeouts", "{timeout}", timeouts, m.bodyTimeouts, "peregrine.timeout", "body");
        sink.counter("peregrine.timeouts", "{timeout}", timeouts, m.idleTimeouts, "peregrine.timeout", "idle");
        sink.counter("peregrine.timeouts", "{timeout}", timeouts, m.writeTimeouts, "peregrine.timeout", "write");
        sink.counter("peregrine.timeouts", "{timeout}", timeouts, m.drainTimeouts, "peregrine.timeout", "drain");
        sink.counter("peregrine.accept.pauses", "{pause}", "Times a loop stopped accepting at maxConnections.", m.acceptPauses);
        sink.counter("peregrine.read.pauses", "{pause}", "Times a connection stopped reading for backpressure.", m.readPauses);
        sink.counter("peregrine.blocked_loop.warnings", "{warning}",
                "Warnings that an inline handler held its loop past blockedLoopWarning.", m.blockedLoopWarnings);
        sink.counter("peregrine.busy_loop.warnings", "{warning}",
                "Warnings that inline handlers held a loop past busyLoopWarning's share of an interval.", m.busyLoopWarnings);
        sink.counter("peregrine.connections.aged", "{connection}",
                "Connections retired for maxConnectionAge (Connection: close on a response, or closed idle).", m.agedConnections);
        String proxy = "Connections closed for their PROXY protocol header: an untrusted peer, or a malformed header.";
        sink.counter("peregrine.proxy.rejected", "{connection}", proxy, m.proxyUntrusted, "peregrine.proxy.reason", "untrusted");
        sink.counter("peregrine.proxy.rejected", "{connection}", proxy, m.proxyMalformed, "peregrine.proxy.reason", "malformed");
        sink.counter("peregrine.http2.streams", "{stream}", "HTTP/2 streams opened.", m.http2Streams);
        sink.counter("peregrine.http2.connection_errors", "{connection}",
                "HTTP/2 connections ended by GOAWAY with an error code (a protocol error or a defence).", m.http2ConnectionErrors);
        String defences = "Times an HTTP/2 defence fired (docs/http2.md): refused streams, floods, bombs, stalled writes.";
        for (String kind : Metrics.HTTP2_DEFENCES) {
            sink.counter("peregrine.http2.defences", "{event}", defences, m.http2Defence(kind), "peregrine.http2.defence", kind);
        }
        sink.gauge("peregrine.buffers.lent", "{buffer}", "Pooled buffers lent to connections now.", m.lentBuffers);
        sink.gauge("peregrine.buffer.memory", "By", "Pooled buffer memory, lent to connections or kept free.",
                m.lentBytes, "peregrine.buffer.state", "lent");
        sink.gauge("peregrine.buffer.memory", "By", "Pooled buffer memory, lent to connections or kept free.",
                m.freeBytes, "peregrine.buffer.state", "free");
        m.describeDurations(sink);
    }
}
