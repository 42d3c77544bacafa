package dev.peregrine;

/**
 * Answers one request. The usual form is a lambda: {@code (req, res) -> res.text("Hello")}.
 *
 * <p>Thread contract: a handler runs on the event loop thread that owns the connection, and must not
 * block: while it runs, no other connection of that loop is served. The {@link Request} and
 * {@link Response} passed in are valid only until {@code handle} returns; they are reused for the
 * loop's next request. Copy what must outlive the call ({@link Request#bodyBytes()},
 * {@link Request#header(String)} and the other {@code String} forms make copies, {@link Request#copy()}
 * copies the whole request).
 *
 * <p>A handler that blocks is declared with {@link Handlers#blocking}: it then runs on another thread
 * with a request and response of its own, valid until it returns. A handler that answers later calls
 * {@link Response#async()} and completes from any thread.
 *
 * <p>An exception thrown by a handler becomes a {@code 500 Internal Server Error} response; it is
 * logged once at WARNING level and the loop carries on.
 */
@FunctionalInterface
public interface Handler {
    /** Fills {@code res} for {@code req}. A handler that sets nothing answers {@code 200} with no body. */
    void handle(Request req, Response res) throws Exception;
}
