package dev.peregrine;

import java.time.Duration;

/**
 * What {@link Server.Builder} serves, kept out of the builder's file: routes ({@code route},
 * {@code get}, {@code post}... with their execution or timeout), filters, hooks and exception
 * mapping, route groups, static files and response compression. The builder inherits them (as it
 * inherits its scalar settings from {@link ServerSettings} and {@link WebSettings}); its
 * {@code start()} builds the router from {@link #routes}.
 *
 * @param <B> the builder type the setters return
 */
abstract class RouteSettings<B extends RouteSettings<B>> extends WebSettings<B> {
    final RouteTable routes = new RouteTable();
    Compression compression;
    ErrorPage errorPage;
    /** Resources routes hold (the static files' open-file caches), closed when the server stops. */
    final java.util.List<AutoCloseable> closeAtStop = new java.util.ArrayList<>();

    /**
     * Registers {@code handler} for {@code method} on {@code path}, run where {@link Server.Builder#execution}
     * says. {@code method} is any token ({@code GET}, {@code PROPFIND}, {@code PURGE},
     * {@code QUERY}...; not CONNECT). {@code path} may hold {@code {name}} segments (one segment
     * each, {@code req.pathParam("name")}) and end in {@code /*} (the rest of the path,
     * {@code req.pathParam("*")}); parameters that could leave their segment are answered 400.
     */
    public B route(String method, String path, Handler handler) {
        return register(method, path, null, handler);
    }

    /**
     * Registers {@code handler} for {@code method} on {@code path}, run as {@code execution} says
     * whatever the server's default. Decorators wrapped around {@code handler} cannot change it.
     */
    public B route(String method, String path, Execution execution, Handler handler) {
        return register(method, path, java.util.Objects.requireNonNull(execution, "execution"), handler);
    }

    private B register(String method, String path, Execution mode, Handler handler) {
        return register(method, path, mode, handler, null);
    }

    /** Registers a route of a group ({@code scope}: its filters; null outside groups). */
    B register(String method, String path, Execution mode, Handler handler, RouteTable.Scope scope) {
        routes.add(method, path, mode, handler, scope, 0);
        return self();
    }

    /** Registers a blocking route with its own timeout ({@code scope}: its group's filters, or null). */
    B register(String method, String path, Duration timeout, Handler handler, RouteTable.Scope scope) {
        routes.add(method, path, Execution.BLOCKING, handler, scope, checkTimeout(timeout, "timeout"));
        return self();
    }

    /**
     * Registers {@code handler} for {@code method} on {@code path} as a blocking route with its own
     * timeout: if it has not produced its response after {@code timeout}, the server answers 503
     * for it (one WARNING naming the request), discards whatever it writes later and interrupts its
     * thread. Overrides {@link #blockingTimeout} for this route.
     */
    public B route(String method, String path, Duration timeout, Handler handler) {
        return register(method, path, timeout, handler, null);
    }

    public B get(String path, Handler handler) {
        return route("GET", path, handler);
    }

    public B get(String path, Execution execution, Handler handler) {
        return route("GET", path, execution, handler);
    }

    public B post(String path, Handler handler) {
        return route("POST", path, handler);
    }

    public B post(String path, Execution execution, Handler handler) {
        return route("POST", path, execution, handler);
    }

    public B put(String path, Handler handler) {
        return route("PUT", path, handler);
    }

    public B put(String path, Execution execution, Handler handler) {
        return route("PUT", path, execution, handler);
    }

    public B delete(String path, Handler handler) {
        return route("DELETE", path, handler);
    }

    public B delete(String path, Execution execution, Handler handler) {
        return route("DELETE", path, execution, handler);
    }

    public B patch(String path, Handler handler) {
        return route("PATCH", path, handler);
    }

    public B patch(String path, Execution execution, Handler handler) {
        return route("PATCH", path, execution, handler);
    }

    public B head(String path, Handler handler) {
        return route("HEAD", path, handler);
    }

    public B head(String path, Execution execution, Handler handler) {
        return route("HEAD", path, execution, handler);
    }

    public B options(String path, Handler handler) {
        return route("OPTIONS", path, handler);
    }

    public B options(String path, Execution execution, Handler handler) {
        return route("OPTIONS", path, execution, handler);
    }

    /**
     * Runs {@code filter} around every route's handler (first registered outermost) and around the
     * router's own answers (404, 405, 501, automatic OPTIONS), so it sees every routed request.
     */
    public B filter(Filter filter) {
        routes.filter(filter);
        return self();
    }

    /**
     * Runs {@code handler} before every route's handler, on the route's execution; if it answers with an
     * error status ({@code res.status() >= 400}) the route does not run.
     */
    public B before(Handler handler) {
        return filter((req, res, next) -> {
            handler.handle(req, res);
            if (res.status() < 400) {
                next.handle(req, res);
            }
        });
    }

    /**
     * Runs {@code handler} after every route's handler, on the route's execution, with the final answer:
     * it reads {@link Response#status()}, {@link Response#header(String)} and {@link Response#bodyLength()}
     * and may add headers. When the handler went {@link Response#async()}, it runs on the completion's
     * response once that completes (on the loop), before it is sent. Not after an exception the
     * exception mapping did not answer.
     */
    public B after(Handler handler) {
        return filter((req, res, next) -> {
            next.handle(req, res);
            if (res.committed() && res instanceof ServerEngine.AfterHook) {
                ((ServerEngine.AfterHook) res).afterHandler(handler, req); // the completion's answer, when it comes
            } else if (!res.committed()) {
                handler.handle(req, res);
            }
        });
    }

    /** Answers requests whose handler throws a {@code type} (or subtype) with {@code handler} instead of 500. */
    public <E extends Throwable> B exception(Class<E> type, ExceptionHandler<? super E> handler) {
        routes.exception(type, handler);
        return self();
    }

    /**
     * Gives every error the server answers itself a body of the application's (JSON, HTML...): the
     * router's 404/405/501/400, the parser's rejections (400, 413, 414, 431, 408...), a failed
     * handler's 500 and {@code res.error(status)}; see {@link ErrorPage}.
     */
    public B errorPage(ErrorPage page) {
        this.errorPage = java.util.Objects.requireNonNull(page, "page");
        return self();
    }

    /** Answers requests for paths no route knows (instead of the plain 404). */
    public B notFound(Handler handler) {
        routes.notFound(handler);
        return self();
    }

    /** Registers routes under {@code prefix}: {@code group("/api", g -> g.get("/users", h))}. */
    public B group(String prefix, java.util.function.Consumer<RouteGroup> routes) {
        if (!prefix.startsWith("/") || prefix.endsWith("/")) {
            throw new IllegalArgumentException("group prefix must start with '/' and not end with it: " + prefix);
        }
        routes.accept(new RouteGroup((Server.Builder) this, prefix, new RouteTable.Scope(null))); // the only subclass
        return self();
    }

    /**
     * Compresses response bodies in memory with gzip or deflate when clients accept them (see
     * {@link Compression} for which responses); off by default.
     */
    public B compression(Compression compression) {
        this.compression = compression;
        return self();
    }

    /**
     * Serves the files under {@code directory} at {@code prefix} ({@code "/static"} serves
     * {@code directory/a/b.css} at {@code /static/a/b.css}) for GET and HEAD, with the defaults of
     * {@link StaticOptions}: validators and conditional requests, ranges,
     * precompressed siblings, no escape from the directory. {@code prefix} itself redirects to
     * {@code prefix/}.
     *
     * @throws IllegalArgumentException when {@code directory} is not a directory
     */
    public B staticFiles(String prefix, java.nio.file.Path directory) {
        return staticFiles(prefix, directory, StaticOptions.defaults());
    }

    /** {@link #staticFiles(String, java.nio.file.Path)} with {@code options}. */
    public B staticFiles(String prefix, java.nio.file.Path directory, StaticOptions options) {
        String p = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        if (!p.startsWith("/")) {
            throw new IllegalArgumentException("prefix must start with '/': " + prefix);
        }
        Handler files = ServerEngine.get().staticFiles(directory, options);
        if (files instanceof AutoCloseable) {
            closeAtStop.add((AutoCloseable) files);
        }
        get(p + "/*", files);
        head(p + "/*", files);
        if (!p.isEmpty()) {
            Handler toSlash = (req, res) -> res.status(301).header("Location", p + "/").text("");
            get(p, toSlash);
            head(p, toSlash);
        }
        return self();
    }
}
