package dev.peregrine;

/**
 * Routes under a common prefix ({@link Server.Builder#group}): {@code group.get("/users", h)} in the
 * group {@code "/api"} registers {@code GET /api/users}. A group may have filters of its own
 * ({@link #filter}), which run inside the server's and around the group's routes only, nested groups'
 * inside their parent's:
 * <pre>{@code
 * .group("/api", api -> api
 *         .filter(Cors.builder().allowOrigins("https://app.example").build())
 *         .get("/users", users))
 * }</pre>
 */
public final class RouteGroup {
    private final Server.Builder builder;
    private final String prefix;
    private final RouteTable.Scope scope;

    RouteGroup(Server.Builder builder, String prefix, RouteTable.Scope scope) {
        this.builder = builder;
        this.prefix = prefix;
        this.scope = scope;
    }

    /**
     * Runs {@code filter} around every route of this group (and of its nested groups), registered
     * before or after this call, and around the router's 405 and automatic OPTIONS answers for their
     * paths. The server's filters run outside it.
     */
    public RouteGroup filter(Filter filter) {
        scope.filters.add(java.util.Objects.requireNonNull(filter, "filter"));
        return this;
    }

    public RouteGroup route(String method, String path, Handler handler) {
        builder.register(method, prefix + path, (Execution) null, handler, scope);
        return this;
    }

    public RouteGroup route(String method, String path, Execution execution, Handler handler) {
        builder.register(method, prefix + path, java.util.Objects.requireNonNull(execution, "execution"), handler, scope);
        return this;
    }

    /** A blocking route with its own timeout ({@link Server.Builder#route(String, String, java.time.Duration, Handler)}). */
    public RouteGroup route(String method, String path, java.time.Duration timeout, Handler handler) {
        builder.register(method, prefix + path, timeout, handler, scope);
        return this;
    }

    public RouteGroup get(String path, Handler handler) {
        return route("GET", path, handler);
    }

    public RouteGroup get(String path, Execution execution, Handler handler) {
        return route("GET", path, execution, handler);
    }

    public RouteGroup post(String path, Execution execution, Handler handler) {
        return route("POST", path, execution, handler);
    }

    public RouteGroup post(String path, Handler handler) {
        return route("POST", path, handler);
    }

    public RouteGroup put(String path, Handler handler) {
        return route("PUT", path, handler);
    }

    public RouteGroup put(String path, Execution execution, Handler handler) {
        return route("PUT", path, execution, handler);
    }

    public RouteGroup delete(String path, Handler handler) {
        return route("DELETE", path, handler);
    }

    public RouteGroup delete(String path, Execution execution, Handler handler) {
        return route("DELETE", path, execution, handler);
    }

    public RouteGroup patch(String path, Handler handler) {
        return route("PATCH", path, handler);
    }

    public RouteGroup patch(String path, Execution execution, Handler handler) {
        return route("PATCH", path, execution, handler);
    }

    public RouteGroup head(String path, Handler handler) {
        return route("HEAD", path, handler);
    }

    public RouteGroup head(String path, Execution execution, Handler handler) {
        return route("HEAD", path, execution, handler);
    }

    public RouteGroup options(String path, Handler handler) {
        return route("OPTIONS", path, handler);
    }

    public RouteGroup options(String path, Execution execution, Handler handler) {
        return route("OPTIONS", path, execution, handler);
    }

    /**
     * A WebSocket endpoint at this group's prefix + {@code path}, as
     * {@link Server.Builder#websocket(String, WebSocketHandler)}: the group's
     * filters (and the server's, outside them) run on the handshake request, and one that answers
     * (a 401, say) stops it. See {@code docs/websocket.md}.
     */
    public RouteGroup websocket(String path, WebSocketHandler handler) {
        return websocket(path, WebSocketOptions.DEFAULTS, handler);
    }

    /** {@link #websocket(String, WebSocketHandler)} with its limits, timeouts and negotiation. */
    public RouteGroup websocket(String path, WebSocketOptions options,
                                WebSocketHandler handler) {
        // The handshake runs on the loop whatever the server's default execution: it switches the connection.
        return route("GET", path, Execution.LOOP, ServerEngine.get().webSocket(prefix + path, options, handler));
    }

    /** A group nested under this one's prefix. */
    public RouteGroup group(String subPrefix, java.util.function.Consumer<RouteGroup> routes) {
        routes.accept(new RouteGroup(builder, prefix + subPrefix, new RouteTable.Scope(scope)));
        return this;
    }
}
