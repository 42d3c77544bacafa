package dev.peregrine.offloop;

import dev.peregrine.Handler;
import dev.peregrine.Request;
import dev.peregrine.Response;

/**
 * A handler marked by {@link dev.peregrine.Handlers#blocking}: the connection hands it to another thread instead of
 * calling it on the loop. Immutable.
 */
public final class BlockingHandler implements Handler {
    private final Handler delegate;
    /** How long the handler may take to answer before 503 ({@link #timeoutMillis()}); 0: the server's asyncTimeout. */
    private final long timeoutMillis;

    public BlockingHandler(Handler delegate) {
        this(delegate, 0);
    }

    public BlockingHandler(Handler delegate, long timeoutMillis) {
        this.delegate = delegate;
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * How long the handler may take to produce its response before the server answers 503 for it and
     * interrupts its thread ({@link dev.peregrine.Server.Builder#blockingTimeout}, or the route's own); 0 when only
     * the server's {@code asyncTimeout} bounds it.
     */
    public long timeoutMillis() {
        return timeoutMillis;
    }

    /** The wrapped handler. */
    public Handler delegate() {
        return delegate;
    }

    /** Runs the wrapped handler (on the calling thread). */
    @Override
    public void handle(Request req, Response res) throws Exception {
        delegate.handle(req, res);
    }
}
