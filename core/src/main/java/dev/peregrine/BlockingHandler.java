package dev.peregrine;

/**
 * A handler marked by {@link Handlers#blocking}: the connection hands it to another thread instead of
 * calling it on the loop. Immutable.
 */
public final class BlockingHandler implements Handler {
    private final Handler delegate;

    BlockingHandler(Handler delegate) {
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
