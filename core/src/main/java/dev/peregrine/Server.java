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

    /** Collects settings and routes; {@link #start()} binds and runs. Not thread-safe. */
    public static final class Builder extends RouteSettings<Builder> {
        /** What modules keep on the builder ({@link ServerEngine#extension}): the protocol switches, say. */
        final Map<Class<?>, Object> extensions = new java.util.HashMap<>();
        int httpsPort = -1;
        /** {@link #teleport}'s port, or -1; and the listener it adds (module {@code peregrine-teleport}). */
        int teleportPort = -1;
        /** TLS of the teleport listener ({@link #teleport(int, TlsConfig)}), or null. */
        TlsConfig teleportTls;
        TlsConfig tlsConfig;
        /** Whether {@link #tls} made the main port speak TLS (then there is no second listener). */
        boolean tlsOnMainPort;
        // Off-loop execution (Handlers.blocking, Response.async, streamed bodies).
        /** Where handlers of routes registered without an {@link Execution} run. */
        Execution execution = Execution.LOOP;
        long blockedLoopWarningMillis = 100;
        /** {@link #busyLoopWarning}: the share of an interval (percent; 0: off) and the interval. */
        int busyLoopPercent = 50;
        long busyLoopIntervalMillis = 1000;
        boolean shutdownHook;
        /** HTTP/2 (prior knowledge, ALPN h2, Upgrade: h2c), {@link #http2}, and its limits. */
        boolean http2 = true;
        Http2Options http2Options = Http2Options.DEFAULTS;
        long drainDelayMillis;
        /** The server once started, for the endpoints that read it (metrics, readiness). */
        final OpsEndpoints.ServerRef self = new OpsEndpoints.ServerRef();
        /** Paths of the operations endpoints, registered at start; null: none. */
        String metricsPath;
        String livePath;
        String readyPath;
        /** Ops (issue 13): PROXY protocol on every listener, or null. */
        dev.peregrine.proxy.ProxyProtocol proxyProtocol;
        dev.peregrine.proxy.ProxyProtocol httpsProxyProtocol;
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
         * Also serves the routes over TLS on {@code port} (0 picks a free one, see
         * {@link Server#httpsPort()}), with the certificates and settings of {@code tls}. The HTTPS
         * listener runs its own loops (as many as {@link #threads}), see {@link Server}.
         */
        public Builder https(int port, TlsConfig tls) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            this.httpsPort = port;
            this.tlsConfig = java.util.Objects.requireNonNull(tls, "tls");
            this.tlsOnMainPort = false;
            return this;
        }

        /**
         * Also serves the routes over teleport (docs/teleport.md: HTTP/1.1 messages multiplexed by id
         * on one connection between Peregrine peers) on {@code port} (0 picks a free one, see
         * {@link Server#teleportPort()}; -1 serves none), with loops of its own as {@link #https} has.
         * Needs the {@code peregrine-teleport} module; without it this throws {@link IllegalStateException}.
         */
        public Builder teleport(int port) {
            if (port < -1 || port > 65535) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            if (port >= 0) {
                ServerEngine.get().requireListener("teleport");
            }
            this.teleportPort = port;
            this.teleportTls = null;
            return this;
        }

        /**
         * As {@link #teleport(int)}, over TLS from the first byte with the certificates of {@code tls},
         * chosen by ALPN {@code peregrine-tp/1} (docs/teleport.md). Compression is then up to each client
         * (off by default; see the document for the CRIME-style risk).
         */
        public Builder teleport(int port, TlsConfig tls) {
            if (port < 0) {
                throw new IllegalArgumentException("port out of range: " + port);
            }
            teleport(port);
            this.teleportTls = java.util.Objects.requireNonNull(tls, "tls");
            return this;
        }

        /**
         * Makes the main {@link #port} speak TLS instead of plain HTTP: an HTTPS-only server with one
         * set of loops. Replaces an earlier {@link #https} setting.
         */
        public Builder tls(TlsConfig tls) {
            this.tlsConfig = java.util.Objects.requireNonNull(tls, "tls");
            this.tlsOnMainPort = true;
            this.httpsPort = -1;
            return this;
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
         * With {@code true}, the server also speaks HTTP/2 (see docs/http2.md): by prior knowledge on
         * the plain port, through ALPN {@code h2} on TLS ports (preferred over {@code http/1.1}), and
         * through {@code Upgrade: h2c}. Streams reach the same routes and filters; inline, blocking
         * and {@code async()} handlers answer over HTTP/2, files, several ranges, {@code res.stream} and
         * {@code res.outputStream} too; a request body in pieces (streaming routes) refuses the stream with
         * HTTP_1_1_REQUIRED so clients retry over HTTP/1.1. Default true ({@code false}: HTTP/1.1 only).
         */
        public Builder http2(boolean on) {
            this.http2 = on;
            return this;
        }

        /**
         * Speaks HTTP/2 as {@link #http2(boolean) http2(true)} does, with {@code options}' limits
         * instead of the defaults ({@link Http2Options#DEFAULTS}).
         */
        public Builder http2(Http2Options options) {
            if (options == null) {
                throw new NullPointerException("options");
            }
            this.http2 = true;
            this.http2Options = options;
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

        // ---- ops (issue 13): load-balancer settings, kept together ----

        /**
         * Expects the PROXY protocol header (HAProxy's, v1 or v2) at the start of every connection to
         * the main {@link #port} (plain, or TLS with {@link #tls}), from the peers {@code proxy} trusts;
         * the header's client becomes {@code req.remoteAddress()}. Other peers and malformed headers
         * are closed (one DEBUG line, counted in the metrics); under TLS the header precedes the
         * handshake. {@code null} turns it off (the default). The second HTTPS port of {@link #https}
         * is a listener of its own: see {@link #httpsProxyProtocol}.
         */
        public Builder proxyProtocol(dev.peregrine.proxy.ProxyProtocol proxy) {
            this.proxyProtocol = proxy;
            return this;
        }

        /**
         * The same as {@link #proxyProtocol} for the second HTTPS port of {@link #https}, which may
         * sit behind a different balancer than the main port (or none). {@code null}: off (the default).
         */
        public Builder httpsProxyProtocol(dev.peregrine.proxy.ProxyProtocol proxy) {
            this.httpsProxyProtocol = proxy;
            return this;
        }

        /**
         * How long one inline handler call may hold its event loop before one WARNING (rate-limited,
         * with the route and the loop's stack) says so; {@link Duration#ZERO} turns the check off.
         * The check is a watchdog thread: it costs the loop two opaque stores per handler call.
         * Default 100 ms.
         */
        public Builder blockedLoopWarning(Duration threshold) {
            if (threshold.isNegative()) {
                throw new IllegalArgumentException("blockedLoopWarning must not be negative: " + threshold);
            }
            this.blockedLoopWarningMillis = threshold.toMillis();
            return this;
        }

        /**
         * Reports a loop that inline handlers held for more than {@code percent} of {@code interval},
         * however short each call was (fifty 20 ms calls a second hold a loop as long as one of a
         * second, and no single call reaches {@link #blockedLoopWarning}): one WARNING naming the routes
         * that held it and their shares, at most once per 10 s per loop, counted in
         * {@code peregrine.busy_loop.warnings}. The watchdog samples which handler each loop runs (the
         * same two opaque stores per call as {@link #blockedLoopWarning}; no clock read on the loop), 50
         * times per interval. {@code percent} 0 turns it off. Default 50% of 1 s.
         */
        public Builder busyLoopWarning(int percent, Duration interval) {
            if (percent < 0 || percent > 100) {
                throw new IllegalArgumentException("busyLoopWarning percent must be 0..100: " + percent);
            }
            if (interval.toMillis() < 50) {
                throw new IllegalArgumentException("busyLoopWarning interval must be at least 50 ms: " + interval);
            }
            this.busyLoopPercent = percent;
            this.busyLoopIntervalMillis = interval.toMillis();
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
