package dev.peregrine;

/**
 * Where a route's handler runs: a property of the route (or of the whole server), never of the
 * handler's class, so no decorator wrapped around a handler can lose it.
 *
 * <pre>{@code
 * Server.builder()
 *     .get("/plaintext", (req, res) -> res.text("Hello"))                     // LOOP (the default)
 *     .get("/db", Execution.BLOCKING, log((req, res) -> res.json(db.query()))) // off the loop
 *     .start();
 * Server.builder().execution(Execution.BLOCKING)...                             // every route off the loop
 * }</pre>
 */
public enum Execution {
    /**
     * On the event loop thread, inline: the fastest, for handlers that never block. A handler that
     * holds the loop longer than {@link Server.Builder#blockedLoopWarning} is reported with one WARNING.
     */
    LOOP,
    /**
     * Off the loop: on a virtual thread on JDK 21+, otherwise on a bounded platform pool
     * ({@link Server.Builder#blockingPoolSize}); the response goes back to the loop when the handler
     * returns. For handlers that block (databases, files, other services).
     */
    BLOCKING
}
