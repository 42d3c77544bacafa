package dev.peregrine;

/**
 * Routes under a common prefix ({@link Server.Builder#group}): {@code group.get("/users", h)} in the
 * group {@code "/api"} registers {@code GET /api/users}.
 */
public final class RouteGroup {
    private final Server.Builder builder;
    private final String prefix;

    RouteGroup(Server.Builder builder, String prefix) {
        this.builder = builder;
        this.prefix = prefix;
    }

    public RouteGroup route(String method, String path, Handler handler) {
        builder.route(method, prefix + path, handler);
        return this;
    }

    public RouteGroup route(String method, String path, Execution execution, Handler handler) {
        builder.route(method, prefix + path, execution, handler);
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

    public RouteGroup delete(String path, Handler handler) {
        return route("DELETE", path, handler);
    }

    public RouteGroup patch(String path, Handler handler) {
        return route("PATCH", path, handler);
    }

    /** A group nested under this one's prefix. */
    public RouteGroup group(String subPrefix, java.util.function.Consumer<RouteGroup> routes) {
        routes.accept(new RouteGroup(builder, prefix + subPrefix));
        return this;
    }
}
