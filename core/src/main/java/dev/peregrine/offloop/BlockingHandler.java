package dev.peregrine.offloop;

import dev.peregrine.Handler;
import dev.peregrine.Request;
import dev.peregrine.Response;

/**
 * A handler marked by {@link dev.peregrine.Handlers#blocking}: the connection hands it to another thread instead of
 * calling it on the loop. Immutable.
 *
 * <p>The marker a user passes is read once, when the router is built ({@code RouteTable}): the route
 * becomes blocking and the server places a marker of its own ({@link #placed}) outside the filters, so
 * the connection's one {@code instanceof} test sees it. The connection runs a placed marker's
 * {@link #delegate()}; {@link #handle} is only ever called on a marker the user hid inside a wrapper
 * of their own, which runs wherever that wrapper runs: that mistake gets one WARNING.
 */
public final class BlockingHandler implements Handler {
    private final Handler delegate;
    /** How long the handler may take to answer before 503 ({@link #timeoutMillis()}); 0: the server's asyncTimeout. */
    private final long timeoutMillis;
    /** Placed by the router's builder as the route's outermost layer (not a user's marker). */
    private final boolean placed;

    public BlockingHandler(Handler delegate) {
        this(delegate, 0, false);
    }

    public BlockingHandler(Handler delegate, long timeoutMillis) {
        this(delegate, timeoutMillis, false);
    }

    private BlockingHandler(Handler delegate, long timeoutMillis, boolean placed) {
        this.delegate = delegate;
        this.timeoutMillis = timeoutMillis;
        this.placed = placed;
    }

    /** The marker the router's builder puts outside a blocking route's filters. */
    public static BlockingHandler placed(Handler decorated, long timeoutMillis) {
        return new BlockingHandler(decorated, timeoutMillis, true);
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

    /**
     * Runs the wrapped handler on the calling thread. Reached only through a wrapper of the user's
     * around a marker they made (the connection runs a placed marker's {@link #delegate()}): such a
     * marker cannot move its caller off the loop, which is said once.
     */
    @Override
    public void handle(Request req, Response res) throws Exception {
        if (!placed) {
            HiddenMarker.report("Handlers.blocking");
        }
        delegate.handle(req, res);
    }
}
