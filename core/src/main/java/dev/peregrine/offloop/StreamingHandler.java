package dev.peregrine.offloop;

import dev.peregrine.Handler;
import dev.peregrine.Request;
import dev.peregrine.Response;

/**
 * A handler marked by {@link dev.peregrine.Handlers#streaming}: for a large body the connection calls it, on the loop,
 * as soon as the head has arrived. Immutable. Read and placed at build as {@link BlockingHandler} is.
 */
public final class StreamingHandler implements Handler {
    private final Handler delegate;
    /** Placed by the router's builder as the route's outermost layer (see {@link BlockingHandler}). */
    private final boolean placed;

    public StreamingHandler(Handler delegate) {
        this(delegate, false);
    }

    private StreamingHandler(Handler delegate, boolean placed) {
        this.delegate = delegate;
        this.placed = placed;
    }

    /** The marker the router's builder puts outside a streaming route's filters. */
    public static StreamingHandler placed(Handler decorated) {
        return new StreamingHandler(decorated, true);
    }

    /** The wrapped handler. */
    public Handler delegate() {
        return delegate;
    }

    /** Runs the wrapped handler (on the calling thread); a user's marker hidden in a wrapper is reported once. */
    @Override
    public void handle(Request req, Response res) throws Exception {
        if (!placed) {
            HiddenMarker.report("Handlers.streaming");
        }
        delegate.handle(req, res);
    }
}
