package dev.peregrine;

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
     * <p>A blocking handler may stream: {@link Request#bodyStream()} reads a body larger than
     * {@link ServerConfig#streamBodyThreshold()} as it arrives, and {@link Response#outputStream()}
     * sends a body of unknown length with chunked encoding.
     */
    public static Handler blocking(Handler handler) {
        if (handler == null) {
            throw new NullPointerException("handler");
        }
        return handler instanceof BlockingHandler ? handler : new BlockingHandler(handler);
    }
}
