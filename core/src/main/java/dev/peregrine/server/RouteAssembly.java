package dev.peregrine.server;

import dev.peregrine.Handler;
import dev.peregrine.ServerEngine;
import dev.peregrine.offloop.BlockingHandler;
import dev.peregrine.offloop.StreamingHandler;
import dev.peregrine.route.Router;

import java.util.Map;

/**
 * Builds the {@link Router} from the routes the API recorded ({@link ServerEngine.Routes}): each
 * route's decorated handler gets the server's mark of where it runs ({@link BlockingHandler},
 * {@link StreamingHandler}) as its outermost layer, so that the connection's one {@code instanceof}
 * test sees it; the router's own answers get the same. Thread: the one starting the server.
 */
final class RouteAssembly {
    private RouteAssembly() {
    }

    /** The router; {@code names} receives how to name each placed handler in logs ({@code GET /db}). */
    static Router build(ServerEngine.Routes routes, Map<Handler, String> names) {
        Router.Builder router = Router.builder();
        for (ServerEngine.BuiltIns b : routes.builtIns()) {
            java.util.function.UnaryOperator<Handler> placed = b.blocking()
                    ? h -> BlockingHandler.placed(b.decorator().apply(h), 0) : b.decorator();
            if (b.path() == null) {
                router.decorate(placed);
            } else {
                router.decorate(b.path(), placed);
            }
        }
        for (ServerEngine.Route r : routes.routes()) {
            Handler h = r.blocking() ? BlockingHandler.placed(r.handler(), r.timeoutMillis())
                    : r.streaming() ? StreamingHandler.placed(r.handler()) : r.handler();
            router.add(r.method(), r.path(), h);
            names.merge(h, r.method() + " " + r.path(), (a, c) -> a + ", " + c);
        }
        if (routes.notFound() != null) {
            router.notFound(routes.notFound());
        }
        return router.build();
    }

    /** The check at registration: a router builder that is never built. */
    static ServerEngine.RouteCheck check() {
        Router.Builder check = Router.builder();
        return check::add;
    }
}
