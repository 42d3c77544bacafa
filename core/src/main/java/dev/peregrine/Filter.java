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
 * Filters see every routed request, the router's own answers included (404, 405, 501, 400 for an
 * unsafe path parameter, the automatic OPTIONS answer), so a CORS or authentication filter applies to
 * them too; a route group's filters ({@link RouteGroup#filter}) see its routes and their paths' 405
 * and OPTIONS answers. Requests the parser rejects (400, 413, 431...) reach no filter.
 */
@FunctionalInterface
public interface Filter {
    void filter(Request req, Response res, Handler next) throws Exception;
}
