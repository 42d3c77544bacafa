package dev.peregrine.offloop;

import dev.peregrine.Handler;
import dev.peregrine.Request;
import dev.peregrine.Response;

/**
 * The server's mark on a streaming route ({@code Handlers.streaming}): for a large body the connection
 * calls it, on the loop, as soon as the head has arrived. Immutable. Placed at build as
 * {@link BlockingHandler} is.
 */
public final class StreamingHandler implements Handler {
    private final Handler delegate;

    private StreamingHandler(Handler delegate) {
        this.delegate = delegate;
    }

    /** The mark the router's builder puts outside a streaming route's filters. */
    public static StreamingHandler placed(Handler decorated) {
        return new StreamingHandler(decorated);
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
