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
 * A filter runs on its route's execution: off the loop for a blocking route, on it for inline and
 * streaming ones, whatever order filters and markers were registered in. It may read back what the
 * handler set ({@link Response#status()}, {@link Response#header(String)}), and may pass the handler a
 * {@code Response} of its own that delegates to {@code res}. After {@code next} returns, a handler that
 * went {@link Response#async()} has handed its answer to the completion ({@link Response#committed()}
 * is true): {@code res} can no longer be changed, so use {@link Server.Builder#after} for headers set
 * after the handler, which waits for the completion. An exception a filter throws is mapped by
 * {@link Server.Builder#exception} like a handler's.
 *
 * <p>Filters see every routed request, the router's own answers included (404, 405, 501, 400 for an
 * unsafe path parameter, the automatic OPTIONS answer), so a CORS or authentication filter applies to
 * them too; a route group's filters ({@link RouteGroup#filter}) see its routes and their paths' 405
 * and OPTIONS answers. Requests the parser rejects (400, 413, 431...) reach no filter.
 */
@FunctionalInterface
public interface Filter {
    void filter(Request req, Response res, Handler next) throws Exception;
}
