package dev.peregrine;

import java.time.Duration;

/**
 * The web features' settings of {@link Server.Builder}, kept out of the builder's file: request ids,
 * the access log ({@code dev.peregrine.web}) and the blocking handlers' timeout. All off by default.
 * The builder inherits them; {@code Server.Builder.start()} hands them to the loops
 * ({@code LoopSetup.withTracing}) and to the router ({@code RouteTable.build}).
 *
 * @param <B> the builder type the setters return
 */
abstract class WebSettings<B extends WebSettings<B>> extends ServerSettings<B> {
    boolean requestIds;
    dev.peregrine.web.AccessLog accessLog;
    /** The blocking handlers' timeout; 0: only asyncTimeout bounds them. */
    long blockingTimeoutMillis;

    /**
     * Gives every routed request an id: the client's {@code X-Request-Id} when valid (1 to 128
     * letters, digits or {@code - _ . : + / = @}), else a new one (a random prefix per loop and
     * a counter: see {@link dev.peregrine.web.RequestIds}). The id is {@code req.requestId()},
     * goes back in the response's {@code X-Request-Id} (also for the router's own answers, errors
     * and timeouts) and into the {@link #accessLog access log}. Off by default: then nothing is
     * done or allocated. Requests the parser rejects get none.
     */
    public B requestIds(boolean on) {
        this.requestIds = on;
        return self();
    }

    /**
     * Writes one line per answered request to {@code log} (combined or JSON lines, from a writer
     * thread: see {@link dev.peregrine.web.AccessLog}); {@code null} turns it off (the default).
     * The server starts the log's writer at {@link Server.Builder#start()} and closes it at {@link Server#close()}.
     */
    public B accessLog(dev.peregrine.web.AccessLog log) {
        this.accessLog = log;
        return self();
    }

    /**
     * How long a blocking handler may take to produce its response (like fasthttp's
     * {@code TimeoutHandler}): past it, the server answers 503 for it (one WARNING naming the
     * request), discards what the handler writes later, and interrupts its thread so that a
     * blocking call it waits in can end; the connection carries on. Progress of a streamed request
     * body restarts the clock; once a streamed response has begun, {@code asyncTimeout} bounds the
     * silence between its chunks. A route may have its own ({@link Server.Builder#route(String, String, Duration, Handler)}).
     * {@link Duration#ZERO} (the default): only {@link #asyncTimeout} bounds blocking handlers (it
     * answers 503 and interrupts too).
     */
    public B blockingTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("blockingTimeout must not be negative: " + timeout);
        }
        this.blockingTimeoutMillis = timeout.isZero() ? 0 : Math.max(1, timeout.toMillis());
        return self();
    }

    /** A route's own timeout in ms, checked at the call. */
    static long checkTimeout(Duration timeout, String what) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + timeout);
        }
        return Math.max(1, timeout.toMillis());
    }
}
