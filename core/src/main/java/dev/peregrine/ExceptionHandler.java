package dev.peregrine;

/**
 * Answers a request whose handler threw {@code E} ({@link Server.Builder#exception}): map it to a
 * status and body of your own instead of the server's 500. An exception handler that throws gets the
 * 500.
 */
@FunctionalInterface
public interface ExceptionHandler<E extends Throwable> {
    void handle(E error, Request req, Response res) throws Exception;
}
