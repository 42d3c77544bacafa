package dev.peregrine;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ways to run a {@link Handler} other than inline on the event loop.
 *
 * <pre>{@code
 * Server.builder()
 *     .get("/plaintext", (req, res) -> res.text("Hello"))                 // inline, on the loop
 *     .get("/db", Handlers.blocking((req, res) -> res.json(db.query())))   // may block
 *     .start();
 * }</pre>
 */
public final class Handlers {
    private Handlers() {
    }

    /**
     * Declares {@code handler} blocking: it runs off the event loop, on a virtual thread when the JVM
     * is 21 or newer, otherwise on a bounded platform pool ({@link Server.Builder#blockingPoolSize}).
     * Its {@link Request} and {@link Response} stay valid until it returns (or, if it called
     * {@link Response#async()}, until it completes); the loop serves other connections meanwhile and
     * writes the response when it is handed back. Requests pipelined behind it on the same connection
     * wait, so responses leave in request order.
     *
     * <p>Blocking is then a property of the route this handler is registered for: filters,
     * {@code before}/{@code after}, exception mappers, CORS and route groups wrap it without moving it
     * back to the loop, and run off the loop with it. Pass the marked handler to the route itself
     * ({@code get(path, Handlers.blocking(h))}): a marker hidden inside a lambda of your own cannot be
     * seen, runs where that lambda runs, and is reported once with a WARNING.
     *
     * <p>A blocking handler may stream: {@link Request#bodyStream()} reads a body larger than
     * {@link ServerConfig#streamBodyThreshold()} as it arrives, and {@link Response#outputStream()}
     * sends a body of unknown length with chunked encoding.
     */
    public static Handler blocking(Handler handler) {
        if (handler == null) {
            throw new NullPointerException("handler");
        }
        return handler instanceof Marker && ((Marker) handler).blocking ? handler : new Marker(handler, true);
    }

    /**
     * Declares an inline {@code handler} that takes large request bodies as they arrive: for a body
     * with a Content-Length above {@link ServerConfig#streamBodyThreshold()} it is called on the loop
     * as soon as the head is in, with {@link Request#bodyStreamed()} true; it registers a
     * {@link BodyListener} with {@link Request#onBody} and, to answer after the body, calls
     * {@link Response#async()} and completes from the listener's {@link BodyListener#onEnd()} (or
     * later). A handler that answers at once instead gets its response sent and the connection closed
     * after it, the rest of the body unread. Smaller bodies are read whole first as for any inline
     * handler; {@code onBody} then delivers them at once.
     *
     * <p>Like {@link #blocking}, streaming is a property of the route: filters and the rest wrap it
     * without losing it (they run on the loop, before the body), the route's body limit is
     * {@code maxStreamedBodySize}, and it wins over the server's default {@link Execution} (not over a
     * route registered with {@link Execution#BLOCKING}).
     */
    public static Handler streaming(Handler handler) {
        if (handler == null) {
            throw new NullPointerException("handler");
        }
        return handler instanceof Marker && !((Marker) handler).blocking ? handler : new Marker(handler, false);
    }

    /**
     * What {@link #blocking} and {@link #streaming} return: a value the route table reads and peels off
     * at start, placing the server's own marker outside the filters. Called itself, it was hidden from
     * the route inside a wrapper of the user's: it runs its handler where it is, and says so once.
     */
    static final class Marker implements Handler {
        private static final System.Logger LOG = System.getLogger("dev.peregrine");
        private static final AtomicBoolean BLOCKING_REPORTED = new AtomicBoolean();
        private static final AtomicBoolean STREAMING_REPORTED = new AtomicBoolean();
        final Handler delegate;
        /** True: {@link #blocking}; false: {@link #streaming}. */
        final boolean blocking;

        Marker(Handler delegate, boolean blocking) {
            this.delegate = delegate;
            this.blocking = blocking;
        }

        @Override
        public void handle(Request req, Response res) throws Exception {
            AtomicBoolean once = blocking ? BLOCKING_REPORTED : STREAMING_REPORTED;
            if (once.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "Handlers." + (blocking ? "blocking" : "streaming")
                        + "(...) is wrapped inside another handler, so it runs where that handler runs ("
                        + Thread.currentThread().getName() + "): pass the marked handler to the route itself,"
                        + " or register the route with an Execution");
            }
            delegate.handle(req, res);
        }
    }
}
