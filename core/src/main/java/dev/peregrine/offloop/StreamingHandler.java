package dev.peregrine.offloop;

import dev.peregrine.Handler;
import dev.peregrine.Request;
import dev.peregrine.Response;

/**
 * A handler marked by {@link dev.peregrine.Handlers#streaming}: for a large body the connection calls it, on the loop,
 * as soon as the head has arrived. Immutable.
 */
public final class StreamingHandler implements Handler {
    private final Handler delegate;

    public StreamingHandler(Handler delegate) {
        this.delegate = delegate;
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
