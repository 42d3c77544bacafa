package dev.peregrine;

/**
 * The body of every error the server answers itself ({@link Server.Builder#errorPage}): the router's
 * 404 (unless {@link Server.Builder#notFound} answers it), 405, 501 and 400 (an unsafe path
 * parameter); the parser's rejections (400, 413, 414, 431, 505, and 408 when a request took too long);
 * a failed handler's 500 (and 400/413/415 for a body it could not read); the 503 of an exchange that
 * timed out; and {@link Response#error(int)} called by handlers and filters. By default each is a
 * {@code text/plain} body "{@code <status> <reason>}".
 * <pre>{@code
 * .errorPage((status, reason, res) -> res.rawJson("{\"status\":" + status + ",\"error\":\"" + reason + "\"}"))
 * }</pre>
 *
 * <p>{@code res} already holds the status and the default body; the page replaces the body and its
 * type and may add headers. It runs on the thread answering (the event loop for the router's and the
 * parser's answers, so it must not block) and may not depend on the request: a parser rejection has
 * none. An exception thrown here is logged once at WARNING and the default body is sent.
 */
@FunctionalInterface
public interface ErrorPage {
    /**
     * Fills the body of the error {@code status} ({@code reason}: its reason phrase, "Not Found").
     * Changing the status is allowed for handler-side errors, but not for parser rejections, whose
     * connection closes after the answer.
     */
    void render(int status, String reason, Response res) throws Exception;
}
