package dev.peregrine.offloop;

import dev.peregrine.Handler;
import dev.peregrine.Request;
import dev.peregrine.Response;

/**
 * The server's mark on a blocking route: the connection hands its {@link #delegate()} to another
 * thread instead of calling it on the loop. Immutable.
 *
 * <p>The user's {@code Handlers.blocking} marker is an API value, read once when the routes are
 * fixed ({@code RouteTable}): the route becomes blocking and the server places this mark
 * ({@link #placed}) outside the filters, so the connection's one {@code instanceof} test sees it.
 */
public final class BlockingHandler implements Handler {
    /** How long the handler may take to answer before 503 ({@link #timeoutMillis()}); 0: the server's asyncTimeout. */
    private final long timeoutMillis;
    private final Handler delegate;

    private BlockingHandler(Handler delegate, long timeoutMillis) {
        this.delegate = delegate;
        this.timeoutMillis = timeoutMillis;
    }

    /** The mark the router's builder puts outside a blocking route's filters. */
    public static BlockingHandler placed(Handler decorated, long timeoutMillis) {
        return new BlockingHandler(decorated, timeoutMillis);
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

    /** Runs the wrapped handler on the calling thread (the connection runs {@link #delegate()} off the loop instead). */
    @Override
    public void handle(Request req, Response res) throws Exception {
        delegate.handle(req, res);
    }
}
