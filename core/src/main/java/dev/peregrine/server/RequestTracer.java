package dev.peregrine.server;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.web.AccessLog;
import dev.peregrine.web.RequestIds;

/**
 * One loop's request ids and access-log lines ({@code dev.peregrine.web}): {@link Http1ServerProtocol}
 * calls {@link #begin} when it dispatches a request, and every place that encodes a response calls
 * {@link #end} (through {@link LoopContext#responding}) just before. A loop has one only while
 * request ids or the access log are on ({@link #create} returns null otherwise), so when both are off
 * the hot path pays a null test.
 *
 * <p>Thread: the owning loop.
 */
final class RequestTracer {
    /** The incoming header whose value is kept as the id when valid. */
    private static final String HEADER = "X-Request-Id";

    private final RequestIds ids;
    private final AccessLog log;
    private final AccessLogLine line;

    private RequestTracer(boolean requestIds, AccessLog log) {
        this.ids = requestIds ? new RequestIds() : null;
        this.log = log;
        this.line = log == null ? null : new AccessLogLine(log.maxFieldLength());
    }

    /** A tracer for one loop, or null when {@code requestIds} is false and {@code log} null. */
    static RequestTracer create(boolean requestIds, AccessLog log) {
        return requestIds || log != null ? new RequestTracer(requestIds, log) : null;
    }

    /** The request is dispatched: gives it its id (echoed by {@code res}) and its start time. */
    void begin(RequestView req, ResponseView res) {
        String id = ids == null ? null : ids.idFor(req.headers().view(HEADER));
        req.setTrace(id, log == null ? 0 : System.nanoTime());
        res.requestId(id);
    }

    /** {@code res} answers {@code req} and is about to be encoded: writes its access-log line. */
    void end(RequestView req, ResponseView res, boolean head) {
        if (log == null) {
            return;
        }
        int status = res.statusCode();
        long bytes = ResponseEncoder.hasBody(status, head) ? res.bodyLengthToSend() : 0;
        long micros = (System.nanoTime() - req.startNanos()) / 1000;
        long receivedMillis = System.currentTimeMillis() - micros / 1000; // the time of the request, as Apache's %t
        log.offer(line.format(log.format(), req, status, bytes, receivedMillis, micros));
    }
}
