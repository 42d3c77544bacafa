package dev.peregrine.server;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.http1.ResponseSource;

/**
 * What one connection's requests are counted and timed against: {@code maxRequestsPerConnection},
 * {@code maxConnectionAge} (with grace and jitter, {@link ConnectionAge}), the request-duration
 * histograms and JFR's slow-handler events. The superclass of {@link Http1ServerProtocol}, so that it
 * costs no object of its own; whatever runs a request's handler (inline, or an {@code Exchange} off
 * the loop) ends it with {@link #lastAllowed}.
 * <pre>
 *   open: requestsLeft = maxRequestsPerConnection (or -1: no limit), agedAt = now + age +- jitter
 *   each request: beginTiming (histograms or JFR on) ... response encoded: lastAllowed(status)
 *     (or a rejection after routing: endTiming(status); closed before any answer: endTiming(499))
 *     --&gt; true when requestsLeft reaches 0 or the loop clock is past agedAt: the response says
 *         Connection: close
 *   idle: the idle timeout shrinks to what is left of agedAt + grace
 * </pre>
 * <p>Thread: the owning loop thread only.
 */
abstract class RequestBudget {
    final ServerLoop srv;
    /** Requests this connection may still serve; -1 for no limit. The one that brings it to 0 closes. */
    private int requestsLeft;
    /** Ops: when the request being answered was dispatched, and its series ({@link RequestDurations}). */
    private boolean timing;
    private long timedSince;
    private int timedKey;
    /** When the connection is past {@code maxConnectionAge} (loop clock), or never ({@link ConnectionAge}). */
    private long agedAt;

    RequestBudget(ServerLoop srv) {
        this.srv = srv;
    }

    /** A connection opens (or a recycled one serves a new socket): the budget is full again. */
    final void startBudget() {
        timing = false;
        int maxRequests = srv.config.maxRequestsPerConnection();
        requestsLeft = maxRequests > 0 ? maxRequests : -1;
        agedAt = ConnectionAge.agedAt(srv.config);
    }

    /** The server is stopping: the request partly received is the last. */
    final void lastRequest() {
        requestsLeft = 1;
    }

    /** Whether the connection is past {@code maxConnectionAge}. */
    final boolean aged() {
        return srv.loop.nowMillis() >= agedAt;
    }

    /** The idle timeout for an idle phase that began at {@code sinceMillis}: less once aged. */
    final long idleMillis(long sinceMillis) {
        return ConnectionAge.idleMillis(srv.config, agedAt, sinceMillis);
    }

    /**
     * Counts a response against {@code maxRequestsPerConnection} (and the one request a shutdown lets
     * finish), whatever ran its handler (inline here, off the loop in {@code Exchange}); true when it is
     * the last the connection may serve, also because the connection is past {@code maxConnectionAge}.
     * Records the request's duration under {@code status} when histograms are on.
     */
    final boolean lastAllowed(int status) {
        endTiming(status);
        return counted();
    }

    /**
     * {@link #lastAllowed(int)} for a response encoded on the loop: its status is read only when the
     * request is timed (the only use of it here).
     */
    final boolean lastAllowed(ResponseSource res) {
        if (timing) {
            endTiming(res.statusCode());
        }
        return counted();
    }

    /** Counts the response; true when it is the last the connection may serve (see {@link #lastAllowed(int)}). */
    private boolean counted() {
        if (requestsLeft > 0 && --requestsLeft == 0) {
            return true;
        }
        if (aged()) {
            srv.metrics.agedConnections++;
            return true;
        }
        return false;
    }

    /**
     * Ops: the timed request ended with {@code status}: recorded in the histogram, and reported to JFR
     * when slow. Called by {@link #lastAllowed} (every response), by a rejection answered after the route
     * was resolved (413 from the head), and at close for a request whose answer can no longer leave
     * ({@link #CLIENT_CLOSED}), so whatever the connection's fate each timed request is counted once.
     */
    final void endTiming(int status) {
        if (timing) {
            timing = false;
            RequestDurations.requestDone(srv, timedKey, status, System.nanoTime() - timedSince);
        }
    }

    /**
     * The status a request is recorded with when its connection closed before its response could leave
     * (the client reset or went away while the handler ran): nginx's 499, "client closed request".
     */
    static final int CLIENT_CLOSED = 499;

    /**
     * Ops: starts the request's clock when histograms are on or a JFR recording wants slow handlers
     * (off: one null test and one flag load).
     */
    final void beginTiming(RequestView req) {
        if (srv.durations != null || srv.slowHandlers) {
            timing = true;
            timedSince = System.nanoTime();
            timedKey = RequestDurations.key(req.routeId(), req.methodId(), 0);
        }
    }
}
