package dev.peregrine;

import dev.peregrine.route.Router;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The routes a {@link Server.Builder} collects, each with its {@link Execution} (or none: the
 * server's default, known only at start). Each registration is checked at the call (a bad path or
 * method, a duplicate), and the router is built at start with every blocking route's handler marked
 * as the outermost layer, so whatever the user wrapped around it runs off the loop too.
 *
 * <p>Thread: the builder's (not thread-safe).
 */
final class RouteTable {
    /** Fails at the call for a bad or duplicate route; the real router is built at start. */
    private final Router.Builder check = Router.builder();
    private final List<Registration> registrations = new ArrayList<>();
    private final List<Filter> filters = new ArrayList<>();
    private final List<Class<? extends Throwable>> exceptionTypes = new ArrayList<>();
    private final List<ExceptionHandler<Throwable>> exceptionHandlers = new ArrayList<>();
    private Handler notFound;

    /** One route as registered. */
    private static final class Registration {
        final String method;
        final String path;
        final Execution execution;
        final Handler handler;

        Registration(String method, String path, Execution execution, Handler handler) {
            this.method = method;
            this.path = path;
            this.execution = execution;
            this.handler = handler;
        }
    }

    /** Registers a route; {@code execution} null means the server's default. */
    void add(String method, String path, Execution execution, Handler handler) {
        check.add(method, path, handler);
        registrations.add(new Registration(method, path, execution, handler));
    }

    void filter(Filter f) {
        filters.add(java.util.Objects.requireNonNull(f, "filter"));
    }

    @SuppressWarnings("unchecked")
    <E extends Throwable> void exception(Class<E> type, ExceptionHandler<? super E> h) {
        exceptionTypes.add(type);
        exceptionHandlers.add((ExceptionHandler<Throwable>) (ExceptionHandler<?>) h);
    }

    void notFound(Handler h) {
        notFound = java.util.Objects.requireNonNull(h, "handler");
    }

    /** {@code h} inside the filters (first registered outermost) and the exception mapping. */
    private Handler decorate(Handler h) {
        Handler inner = h;
        if (!exceptionTypes.isEmpty()) {
            Handler route = inner;
            inner = (req, res) -> {
                try {
                    route.handle(req, res);
                } catch (Throwable t) {
                    for (int i = 0; i < exceptionTypes.size(); i++) {
                        if (exceptionTypes.get(i).isInstance(t)) {
                            res.status(200); // the handler's partial answer is replaced below
                            exceptionHandlers.get(i).handle(t, req, res);
                            return;
                        }
                    }
                    throw t;
                }
            };
        }
        for (int i = filters.size() - 1; i >= 0; i--) {
            Filter f = filters.get(i);
            Handler next = inner;
            inner = (req, res) -> f.filter(req, res, next);
        }
        return inner;
    }

    /**
     * The router, with {@code defaultExecution} for routes registered without one; {@code names}
     * receives how to name each placed handler in logs ({@code GET /db}).
     */
    Router build(Execution defaultExecution, Map<Handler, String> names) {
        Router.Builder router = Router.builder();
        for (Registration r : registrations) {
            Execution mode = r.execution != null ? r.execution : defaultExecution;
            Handler decorated = decorate(r.handler);
            Handler h = mode == Execution.BLOCKING ? Handlers.blocking(decorated) : decorated;
            router.add(r.method, r.path, h);
            names.merge(h, r.method + " " + r.path, (a, b) -> a + ", " + b);
        }
        if (notFound != null) {
            router.notFound(notFound);
        }
        return router.build();
    }
}
