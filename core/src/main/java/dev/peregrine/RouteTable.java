package dev.peregrine;

import java.util.ArrayList;
import java.util.List;

/**
 * The routes a {@link Server.Builder} collects, each with its {@link Execution} (or none: the
 * server's default, known only at start). Each registration is checked at the call (a bad path or
 * method, a duplicate), and the router is built at start. Blocking and streaming are properties of
 * the route: a {@code Handlers.blocking}/{@code streaming} marker on the registered handler is read
 * and peeled off, the filters, exception mapping and group filters are wrapped around what it marked,
 * and a marker of the server's own is placed outermost, so the connection's one {@code instanceof}
 * test sees it and every filter runs on the handler's execution. The table hands the engine values
 * ({@link ServerEngine.Routes}); the engine builds the router and places its marks.
 *
 * <p>Thread: the builder's (not thread-safe).
 */
final class RouteTable {
    /** Fails at the call for a bad or duplicate route (made at the first route); the real router is built at start. */
    private ServerEngine.RouteCheck check;
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
        /** The group it was registered in, or null. */
        final Scope scope;
        /** The route's own blocking timeout, or 0: the server's. */
        final long timeoutMillis;

        Registration(String method, String path, Execution execution, Handler handler, Scope scope, long timeoutMillis) {
            this.method = method;
            this.path = path;
            this.execution = execution;
            this.handler = handler;
            this.scope = scope;
            this.timeoutMillis = timeoutMillis;
        }
    }

    /**
     * A route group's own filters ({@link RouteGroup#filter}), inside its parent's. Read at build, so a
     * group's filter applies to all of the group's routes, registered before or after it.
     */
    static final class Scope {
        final Scope parent;
        final List<Filter> filters = new ArrayList<>();

        Scope(Scope parent) {
            this.parent = parent;
        }
    }

    /**
     * Registers a route; {@code execution} null means the server's default; {@code scope} its group or
     * null; {@code timeoutMillis} its own blocking timeout (0: the server's).
     */
    void add(String method, String path, Execution execution, Handler handler, Scope scope, long timeoutMillis) {
        if (check == null) {
            check = ServerEngine.get().routeCheck();
        }
        check.add(method, path, handler);
        registrations.add(new Registration(method, path, execution, handler, scope, timeoutMillis));
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

    /**
     * {@code h} inside the server's filters (first registered outermost), then its group's (outer
     * groups first), and the exception mapping, twice: around the handler, so the filters see (and an
     * after-hook reads) the mapped answer, and around the whole chain, so an exception a filter throws
     * is mapped like the handler's.
     */
    private Handler decorate(Handler h, Scope scope) {
        Handler mapped = mapExceptions(h);
        Handler inner = mapped;
        for (Scope s = scope; s != null; s = s.parent) {
            inner = wrap(s.filters, inner);
        }
        Handler chain = wrap(filters, inner);
        return chain == mapped ? mapped : mapExceptions(chain);
    }

    /** {@code h} with the exception mapping around it; {@code h} itself when there is none. */
    private Handler mapExceptions(Handler h) {
        if (exceptionTypes.isEmpty()) {
            return h;
        }
        return (req, res) -> {
            try {
                h.handle(req, res);
            } catch (Throwable t) {
                for (int i = 0; i < exceptionTypes.size(); i++) {
                    if (exceptionTypes.get(i).isInstance(t)) {
                        if (!res.committed()) {
                            res.status(200); // the partial answer is replaced below
                        }
                        exceptionHandlers.get(i).handle(t, req, res);
                        return;
                    }
                }
                throw t;
            }
        };
    }

    private static Handler wrap(List<Filter> filters, Handler h) {
        Handler inner = h;
        for (int i = filters.size() - 1; i >= 0; i--) {
            Filter f = filters.get(i);
            Handler next = inner;
            inner = (req, res) -> f.filter(req, res, next);
        }
        return inner;
    }

    /**
     * The router's own answers (404, 405, 501, OPTIONS...) inside the filters, like a route's handler;
     * off the loop when the server's default is blocking and a filter runs (a filter may block).
     */
    private ServerEngine.BuiltIns builtIns(String path, Scope scope, Execution defaultExecution) {
        boolean filtered = !filters.isEmpty() || scope != null;
        return new ServerEngine.BuiltIns(path, h -> decorate(h, scope), defaultExecution == Execution.BLOCKING && filtered);
    }

    /** The routes, with {@code defaultExecution} for routes registered without one. */
    ServerEngine.Routes build(Execution defaultExecution, long blockingTimeoutMillis) {
        List<ServerEngine.Route> routes = new ArrayList<>(registrations.size());
        List<ServerEngine.BuiltIns> builtIns = new ArrayList<>();
        builtIns.add(builtIns(null, null, defaultExecution));
        java.util.Set<String> groupPaths = new java.util.HashSet<>();
        for (Registration r : registrations) {
            // The user's marker is a property of the route: peeled off here, then placed again (by the
            // engine) outside the filters, mappers and groups, so none of them can hide it from the connection.
            Handler user = r.handler;
            boolean blocking = r.execution == Execution.BLOCKING;
            boolean streaming = false;
            long timeout = r.timeoutMillis;
            while (user instanceof Handlers.Marker) {
                Handlers.Marker marker = (Handlers.Marker) user;
                if (marker.blocking) {
                    blocking = true; // the marker says the handler may block: even on a route declared LOOP
                } else {
                    streaming = true;
                }
                user = marker.delegate;
            }
            // The server's default applies to a route that says nothing: no Execution, no marker.
            blocking |= r.execution == null && !streaming && defaultExecution == Execution.BLOCKING;
            timeout = timeout > 0 ? timeout : blockingTimeoutMillis;
            if (r.scope != null && groupPaths.add(r.path)) { // this path's 405 and OPTIONS answers run its (first) group's filters too
                builtIns.add(builtIns(r.path, r.scope, defaultExecution));
            }
            // Marked both ways, or streaming on a route declared BLOCKING: a blocking route already takes a
            // large body as it arrives (bodyStream), so blocking wins.
            routes.add(new ServerEngine.Route(r.method, r.path, decorate(user, r.scope), blocking, streaming && !blocking,
                    blocking ? timeout : 0));
        }
        return new ServerEngine.Routes(List.copyOf(routes), List.copyOf(builtIns), notFound);
    }
}
