package dev.peregrine;

/**
 * A response that is finished later, from any thread: what {@link Response#async()} returns.
 *
 * <pre>{@code
 * .get("/later", (req, res) -> {
 *     Completion done = res.async();
 *     client.fetch(done.request().query().get("id")).thenAccept(v -> {
 *         done.response().text(v);
 *         done.complete();
 *     });
 * })
 * }</pre>
 *
 * <p><b>Lifetime.</b> {@link #request()} is a copy of the request that stays valid until this
 * completion completes, fails or times out. {@link #response()} is this exchange's own response: fill
 * it, then call {@link #complete()}; the loop encodes and writes it.
 *
 * <p><b>Once only.</b> The first of {@link #complete()}, {@link #fail(Throwable)} or the loop's timeout
 * ({@link ServerConfig#asyncTimeoutMillis()}, which answers {@code 503 Service Unavailable}) wins.
 * Later calls, and calls after the connection closed, do nothing and return {@code false}; nothing is
 * logged for them, the return value is the report. Call one of them even after a timeout: the copy of
 * the request lives in the loop's pooled memory and goes back only once the handler has ended.
 *
 * <p>Thread: any; the response must be filled by one thread at a time and not touched after
 * {@link #complete()}.
 */
public interface Completion {
    /** The request, valid until this completion ends. */
    Request request();

    /** The response to fill before {@link #complete()}. */
    Response response();

    /** Hands the response to the loop. Returns {@code false} if already completed, failed, timed out or closed. */
    boolean complete();

    /**
     * Answers {@code 500} (or, if a streamed body has begun, closes the connection) and logs
     * {@code error} once at WARNING. Returns {@code false} if this completion had already ended.
     */
    boolean fail(Throwable error);
}
