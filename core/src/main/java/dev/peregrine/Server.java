package dev.peregrine;

import dev.peregrine.tls.TlsConfig;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A running HTTP/1.1 server.
 *
 * <pre>{@code
 * try (Server server = Server.builder()
 *         .port(8080)
 *         .get("/plaintext", (req, res) -> res.text("Hello, World!"))
 *         .post("/echo", (req, res) -> res.body(req.body()))
 *         .start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p><b>HTTPS.</b> {@link Builder#https(int, TlsConfig)} adds a second listener whose connections
 * speak TLS ({@code dev.peregrine.tls}). It runs as a second, independent set of loops of the same
 * transport (the same number of threads), sharing only the router: the simplest design that works on
 * every transport unchanged, since a transport then never has to tell its listeners apart. Each
 * loop still owns all of its connections, buffers and timers.
 *
 * <p>{@link #close()} stops accepting, lets responses being written finish within the shutdown grace,
 * closes every connection, stops the loop threads and frees their pooled memory; the port can be bound
 * again at once. Thread: any.
 */
public final class Server implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    private final ServerConfig config;
    /** The engine's side: listeners, loops, executor (see {@link ServerEngine}). */
    private final ServerEngine.Running running;
    /** The JVM shutdown hook that closes this server ({@link Builder#shutdownHook}), or null. */
    private volatile Thread shutdownHook;
    private volatile boolean closed;
    /** False from the first moment of {@link #close()}: what {@code /health/ready} answers. */
    private volatile boolean ready = true;
    /** How long {@link #close()} keeps serving after readiness turned 503 ({@link Builder#drainDelay}). */
    private final long drainDelayMillis;

    private Server(ServerConfig config, ServerEngine.Running running, long drainDelayMillis) {
        this.config = config;
        this.running = running;
        this.drainDelayMillis = drainDelayMillis;
    }

    /** A builder with defaults: port 8080, one loop per available processor. */
    public static Builder builder() {
        return new Builder();
    }

    /** The bound port (the chosen one when the builder asked for port 0). */
    public int port() {
        return running.port();
    }

    /**
     * The bound HTTPS port: the {@link Builder#https} listener's, or {@link #port()} when the main port
     * speaks TLS ({@link Builder#tls}); -1 when the server serves no HTTPS.
     */
    public int httpsPort() {
        return running.httpsPort();
    }

    /** The bound teleport port ({@link Builder#teleport}), or -1 when the server serves no teleport. */
    public int teleportPort() {
        return running.teleportPort();
    }

    /** The transport serving: {@link Transport#NIO}, {@link Transport#EPOLL} or {@link Transport#IO_URING}, never AUTO. */
    public Transport transport() {
        return running.transport();
    }

    /** The settings in force. */
    public ServerConfig config() {
        return config;
    }

    /** A snapshot of the loops' counters, read without locks (values may lag by a few requests). */
    public Metrics metrics() {
        return running.metrics();
    }

    /**
     * Whether the server wants new traffic: true once started, false from the moment {@link #close()}
     * begins (the drain), so that a load balancer's readiness probe ({@link Builder#healthEndpoints})
     * turns it away before connections are refused. Thread: any.
     */
    public boolean ready() {
        return ready && !closed;
    }

    /**
     * Stops the server. With a {@link Builder#drainDelay}, readiness turns 503 first and the server
     * keeps serving for that long, so that load balancers take it out of rotation; then it stops
     * accepting and gives connections the shutdown grace as described above. Blocks the calling thread
     * for the drain and the grace. Thread: any; later calls return at once.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ready = false;
        long started = System.nanoTime();
        if (drainDelayMillis > 0) {
            drain();
        }
        running.stop(config.shutdownGraceMillis());
        String stopped = "Peregrine on port " + port() + " stopped in " + (System.nanoTime() - started) / 1_000_000 + " ms";
        if (Thread.currentThread() == shutdownHook) {
            // The JVM is exiting: java.util.logging resets itself in a shutdown hook of its own that
            // runs beside this one, and a record logged after it is dropped. This line goes to
            // standard error instead, so that it is never lost.
            System.err.println(stopped);
        } else {
            LOG.log(System.Logger.Level.INFO, stopped);
            removeShutdownHook();
        }
    }

    /** Keeps serving, not ready, for the drain delay (an interrupt ends the drain early). */
    private void drain() {
        if (Thread.currentThread() != shutdownHook) {
            LOG.log(System.Logger.Level.INFO, "Peregrine on port {0} draining for {1} ms (not ready)",
                    String.valueOf(port()), String.valueOf(drainDelayMillis));
        }
        long deadline = System.nanoTime() + drainDelayMillis * 1_000_000;
        for (long left; (left = deadline - System.nanoTime()) > 0; ) {
            try {
                // A real wait, not synchronisation: the load balancer needs this much time to notice.
                Thread.sleep(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Registers the JVM shutdown hook (SIGTERM, SIGINT, System.exit) that closes this server. */
    void addShutdownHook() {
        Thread hook = new Thread(this::close, "peregrine-shutdown");
        shutdownHook = hook;
        Runtime.getRuntime().addShutdownHook(hook);
    }

    private void removeShutdownHook() {
        Thread hook = shutdownHook;
        if (hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException exiting) {
                // the JVM is already shutting down: the hook runs and finds the server closed
            }
        }
    }

    /**
     * Collects settings and routes; {@link #start()} binds and runs. Not thread-safe. The setters of
     * limits, timeouts, listeners and protocols come from the builder's one (package-private)
     * superclass, {@code ServerSettings}; this class holds what the server serves (routes, filters,
     * groups, static files, WebSockets, the operations endpoints), how it stops, and the start itself.
     */
    public static final class Builder extends ServerSettings<Builder> {
        /** What modules keep on the builder ({@link ServerEngine#extension}): the protocol switches, say. */
        final Map<Class<?>, Object> extensions = new java.util.HashMap<>();
        final RouteTable routes = new RouteTable();
        Compression compression;
        ErrorPage errorPage;
        /** Resources routes hold (the static files' open-file caches), closed when the server stops. */
        final List<AutoCloseable> closeAtStop = new java.util.ArrayList<>();
        // Off-loop execution (Handlers.blocking, Response.async, streamed bodies).
        /** Where handlers of routes registered without an {@link Execution} run. */
        Execution execution = Execution.LOOP;
        // How the server stops ({@link #shutdownHook}, {@link #drainDelay}): read by start() and close().
        boolean shutdownHook;
        long drainDelayMillis;
        /** The server once started, for the endpoints that read it (metrics, readiness). */
        final OpsEndpoints.ServerRef self = new OpsEndpoints.ServerRef();
        /** Paths of the operations endpoints, registered at start; null: none. */
        String metricsPath;
        String livePath;
        String readyPath;
        /** Bad outside values ({@link Settings}), reported by {@link #start()}. */
        private final List<String> settingProblems;
        final List<String> unknownSettings;

        Builder() {
            this(true);
        }

        @Override
        Builder self() {
            return this;
        }

        /** @param fromOutside whether to apply {@code peregrine.*} properties and {@code PEREGRINE_*} variables */
        Builder(boolean fromOutside) {
            if (fromOutside) {
                java.util.Properties properties = System.getProperties();
                Map<String, String> env = System.getenv();
                settingProblems = Settings.apply(this, properties, env);
                unknownSettings = Settings.unknownNames(properties, env);
            } else {
                settingProblems = List.of();
                unknownSettings = List.of();
            }
        }

        /**
         * Where the handlers of routes registered without an explicit {@link Execution} run: on the
         * loop (the default) or, for Helidon-style services whose handlers block, every one off it.
         * Applies to every such route, whether registered before or after this call.
         */
        public Builder execution(Execution execution) {
            this.execution = java.util.Objects.requireNonNull(execution, "execution");
            return this;
        }

        /**
         * With {@code true}, the server closes gracefully when the JVM is asked to stop (SIGTERM,
         * SIGINT/Ctrl-C, {@code System.exit}) through a shutdown hook registered at start and removed
         * by an explicit {@link Server#close()}. The "stopped in N ms" line of a close from the hook
         * goes to standard error, because java.util.logging shuts itself down at the same moment.
         * Default false.
         */
        public Builder shutdownHook(boolean on) {
            this.shutdownHook = on;
            return this;
        }

        /**
         * How long {@link Server#close()} (and so SIGTERM with {@link #shutdownHook}) keeps serving
         * after readiness turned 503, before it stops accepting: long enough for load balancers to
         * stop sending (a few probe periods). Default 0: close stops at once.
         */
        public Builder drainDelay(Duration delay) {
            if (delay.isNegative()) {
                throw new IllegalArgumentException("drainDelay must not be negative: " + delay);
            }
            this.drainDelayMillis = delay.toMillis();
            return this;
        }

        /**
         * Registers {@code handler} for {@code method} on {@code path}, run where {@link Server.Builder#execution}
         * says. {@code method} is any token ({@code GET}, {@code PROPFIND}, {@code PURGE},
         * {@code QUERY}...; not CONNECT). {@code path} may hold {@code {name}} segments (one segment
         * each, {@code req.pathParam("name")}) and end in {@code /*} (the rest of the path,
         * {@code req.pathParam("*")}); parameters that could leave their segment are answered 400.
         */
        public Builder route(String method, String path, Handler handler) {
            return register(method, path, null, handler);
        }

        /**
         * Registers {@code handler} for {@code method} on {@code path}, run as {@code execution} says
         * whatever the server's default. Decorators wrapped around {@code handler} cannot change it.
         */
        public Builder route(String method, String path, Execution execution, Handler handler) {
            return register(method, path, java.util.Objects.requireNonNull(execution, "execution"), handler);
        }

        private Builder register(String method, String path, Execution mode, Handler handler) {
            return register(method, path, mode, handler, null);
        }

        /** Registers a route of a group ({@code scope}: its filters; null outside groups). */
        Builder register(String method, String path, Execution mode, Handler handler, RouteTable.Scope scope) {
            routes.add(method, path, mode, handler, scope, 0);
            return this;
        }

        /** Registers a blocking route with its own timeout ({@code scope}: its group's filters, or null). */
        Builder register(String method, String path, Duration timeout, Handler handler, RouteTable.Scope scope) {
            routes.add(method, path, Execution.BLOCKING, handler, scope, Checks.checkTimeout(timeout, "timeout"));
            return this;
        }

        /**
         * Registers {@code handler} for {@code method} on {@code path} as a blocking route with its own
         * timeout: if it has not produced its response after {@code timeout}, the server answers 503
         * for it (one WARNING naming the request), discards whatever it writes later and interrupts its
         * thread. Overrides {@link #blockingTimeout} for this route.
         */
        public Builder route(String method, String path, Duration timeout, Handler handler) {
            return register(method, path, timeout, handler, null);
        }

        public Builder get(String path, Handler handler) {
            return route("GET", path, handler);
        }

        public Builder get(String path, Execution execution, Handler handler) {
            return route("GET", path, execution, handler);
        }

        public Builder post(String path, Handler handler) {
            return route("POST", path, handler);
        }

        public Builder post(String path, Execution execution, Handler handler) {
            return route("POST", path, execution, handler);
        }

        public Builder put(String path, Handler handler) {
            return route("PUT", path, handler);
        }

        public Builder put(String path, Execution execution, Handler handler) {
            return route("PUT", path, execution, handler);
        }

        public Builder delete(String path, Handler handler) {
            return route("DELETE", path, handler);
        }

        public Builder delete(String path, Execution execution, Handler handler) {
            return route("DELETE", path, execution, handler);
        }

        public Builder patch(String path, Handler handler) {
            return route("PATCH", path, handler);
        }

        public Builder patch(String path, Execution execution, Handler handler) {
            return route("PATCH", path, execution, handler);
        }

        public Builder head(String path, Handler handler) {
            return route("HEAD", path, handler);
        }

        public Builder head(String path, Execution execution, Handler handler) {
            return route("HEAD", path, execution, handler);
        }

        public Builder options(String path, Handler handler) {
            return route("OPTIONS", path, handler);
        }

        public Builder options(String path, Execution execution, Handler handler) {
            return route("OPTIONS", path, execution, handler);
        }

        /**
         * Runs {@code filter} around every route's handler (first registered outermost) and around the
         * router's own answers (404, 405, 501, automatic OPTIONS), so it sees every routed request.
         */
        public Builder filter(Filter filter) {
            routes.filter(filter);
            return this;
        }

        /**
         * Runs {@code handler} before every route's handler, on the route's execution; if it answers with an
         * error status ({@code res.status() >= 400}) the route does not run.
         */
        public Builder before(Handler handler) {
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
        public Builder after(Handler handler) {
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
        public <E extends Throwable> Builder exception(Class<E> type, ExceptionHandler<? super E> handler) {
            routes.exception(type, handler);
            return this;
        }

        /**
         * Gives every error the server answers itself a body of the application's (JSON, HTML...): the
         * router's 404/405/501/400, the parser's rejections (400, 413, 414, 431, 408...), a failed
         * handler's 500 and {@code res.error(status)}; see {@link ErrorPage}.
         */
        public Builder errorPage(ErrorPage page) {
            this.errorPage = java.util.Objects.requireNonNull(page, "page");
            return this;
        }

        /** Answers requests for paths no route knows (instead of the plain 404). */
        public Builder notFound(Handler handler) {
            routes.notFound(handler);
            return this;
        }

        /** Registers routes under {@code prefix}: {@code group("/api", g -> g.get("/users", h))}. */
        public Builder group(String prefix, java.util.function.Consumer<RouteGroup> routes) {
            if (!prefix.startsWith("/") || prefix.endsWith("/")) {
                throw new IllegalArgumentException("group prefix must start with '/' and not end with it: " + prefix);
            }
            routes.accept(new RouteGroup(this, prefix, new RouteTable.Scope(null)));
            return this;
        }

        /**
         * Compresses response bodies in memory with gzip or deflate when clients accept them (see
         * {@link Compression} for which responses); off by default.
         */
        public Builder compression(Compression compression) {
            this.compression = compression;
            return this;
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
        public Builder staticFiles(String prefix, java.nio.file.Path directory) {
            return staticFiles(prefix, directory, StaticOptions.defaults());
        }

        /** {@link #staticFiles(String, java.nio.file.Path)} with {@code options}. */
        public Builder staticFiles(String prefix, java.nio.file.Path directory, StaticOptions options) {
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
            return this;
        }

        /**
         * A WebSocket endpoint at {@code path} (RFC 6455; path parameters and the server's filters apply to its
         * handshake, which runs on the loop): see {@code docs/websocket.md}. Its callbacks run on the loop, or
         * off it with {@code WebSocketOptions.execution(Execution.BLOCKING)}; {@link RouteGroup#websocket}
         * registers one inside a group.
         */
        public Builder websocket(String path, WebSocketHandler handler) {
            return websocket(path, WebSocketOptions.DEFAULTS, handler);
        }

        /** {@link #websocket(String, WebSocketHandler)} with its limits, timeouts and negotiation. */
        public Builder websocket(String path, WebSocketOptions options, WebSocketHandler handler) {
            return get(path, Execution.LOOP, ServerEngine.get().webSocket(path, options, handler));
        }

        /**
         * Serves the server's metrics at {@code path} ({@code GET}) in the Prometheus text format, or
         * OpenMetrics when the scraper asks for it, plus the JVM's heap and direct memory. Runs on the
         * loop: it reads counters with plain loads and takes no lock (names in {@link Metrics#describe}).
         */
        public Builder metricsEndpoint(String path) {
            this.metricsPath = OpsEndpoints.checkPath(path, "metricsEndpoint");
            return this;
        }

        /**
         * Serves {@code livePath} (200 while the process serves) and {@code readyPath} (200 while
         * {@link Server#ready()}, 503 from the first moment of {@link Server#close()}: the drain), for
         * liveness and readiness probes, e.g. {@code "/health/live", "/health/ready"}. Both run on the loop.
         */
        public Builder healthEndpoints(String livePath, String readyPath) {
            this.livePath = OpsEndpoints.checkPath(livePath, "healthEndpoints");
            this.readyPath = OpsEndpoints.checkPath(readyPath, "healthEndpoints");
            return this;
        }

        /**
         * Binds and starts the loops; returns once the server accepts connections.
         *
         * @throws UncheckedIOException when the address cannot be bound
         * @throws IllegalStateException when the requested transport is not available
         * @throws IllegalArgumentException when a {@code peregrine.*} / {@code PEREGRINE_*} value is bad
         *         (the message names the setting, its source and the value)
         */
        public Server start() {
            if (!unknownSettings.isEmpty()) {
                LOG.log(System.Logger.Level.WARNING, "unknown Peregrine settings ignored (see docs/settings.md): {0}",
                        String.join(", ", unknownSettings));
            }
            ServerEngine.Plan plan = plan();
            ServerEngine.Running running = ServerEngine.get().start(plan);
            Server server = new Server(plan.config(), running, drainDelayMillis);
            running.started(server);
            self.server = server;
            if (shutdownHook) {
                server.addShutdownHook();
            }
            return server;
        }

        /** The settings fixed and the routes (with the operations endpoints) taken, for the engine. */
        ServerEngine.Plan plan() {
            ServerConfig config = settings();
            OpsEndpoints.register(this, self);
            return new ServerEngine.Plan(this, config, routes.build(execution, blockingTimeoutMillis));
        }

        /**
         * The settings this builder holds, as {@link #start()} would fix them, without starting: for
         * {@link TestClient} and for tools that run loops of their own (the HTTP client's).
         *
         * @throws IllegalArgumentException when a {@code peregrine.*} / {@code PEREGRINE_*} value is bad
         */
        public ServerConfig settings() {
            if (!settingProblems.isEmpty()) {
                throw new IllegalArgumentException(String.join("; ", settingProblems));
            }
            if (maxHeaderCount > maxHeadSize / 4) {
                maxHeaderCount = Math.max(1, maxHeadSize / 4);
            }
            if (transport == null) {
                transport = Transport.fromSystemProperty();
            }
            return new ServerConfig(this);
        }
    }
}
