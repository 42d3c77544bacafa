package dev.peregrine;

/**
 * Runs around every route's handler ({@link Server.Builder#filter}): it may act before, call
 * {@code next} (or not, answering itself), and act after. Filters registered first are outermost.
 * A filter runs where its route's handler runs (on the loop, or off it for blocking routes).
 * <pre>{@code
 * .filter((req, res, next) -> {
 *     if (req.header("Authorization") == null) { res.error(401); return; }
 *     next.handle(req, res);
 * })
 * }</pre>
 * Filters see routed requests; the router's own answers (404, 405, 501) are shaped with
 * {@link Server.Builder#notFound}.
 */
@FunctionalInterface
public interface Filter {
    void filter(Request req, Response res, Handler next) throws Exception;
}
