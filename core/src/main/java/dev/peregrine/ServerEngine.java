package dev.peregrine;

import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The service-provider interface through which the API package reaches the server that implements
 * it, as JDBC's {@code Driver} or SLF4J 2's {@code SLF4JServiceProvider} do: this package names none
 * of the packages that do the work, so the package graph has no cycle through it.
 * <pre>
 *   application ──> dev.peregrine (the API: Server, Builder, Handler, Request, Response... and this SPI)
 *                      │  names only packages below it: buffer, compress, cookie, form, json, metrics, proxy, tls, web, websocket
 *                      │  ServiceLoader.load(ServerEngine.class), once, at the first builder call that needs it
 *                      v
 *   dev.peregrine.server.Engine (META-INF/services, module-info "provides")
 *      └─> route, offloop, http1, h2, files, websocket.engine, transport, tls.engine, loop (all name the API, none is named by it)
 * </pre>
 * The API records what the application asked for as values ({@link Plan}: settings, routes with their
 * filters already around them, listeners) and hands them over at {@code start()}; the engine answers
 * with a {@link Running} server, or a {@link Wire} for {@link TestClient}.
 *
 * <p>Not for applications: a module that implements the server (core's own {@code Engine}) implements
 * it. Thread: the builder's, except {@link Running}'s methods (any).
 */
public interface ServerEngine {
    /** The engine of the class or module path (found once; {@link IllegalStateException} when there is none). */
    static ServerEngine get() {
        return EngineLookup.ENGINE;
    }

    /** A fresh check of route registrations: the router's rules (method token, path pattern, duplicates) at the call. */
    RouteCheck routeCheck();

    /** The handler that serves {@code directory} ({@code staticFiles}); it is also {@link AutoCloseable}, closed at stop. */
    Handler staticFiles(Path directory, StaticOptions options);

    /** The handshake route of a WebSocket endpoint registered at {@code path}. */
    Handler webSocket(String path, WebSocketOptions options, WebSocketHandler handler);

    /**
     * Fails with {@link IllegalStateException} when the listener {@code name} ({@code "teleport"}) cannot
     * be added: its module is not on the class or module path.
     */
    void requireListener(String name);

    /** Binds and starts what {@code plan} describes; a failed start holds no port, thread or file. */
    Running start(Plan plan);

    /** The server of {@code plan} on loops the caller drives (no socket, no thread): {@link TestClient}. */
    Wire wire(Plan plan);

    /** Rejects a bad route at its registration, as the router built at start would. */
    interface RouteCheck {
        /** @throws IllegalArgumentException for a bad method or path, or a duplicate */
        void add(String method, String path, Handler handler);
    }

    /** A started server, as {@link Server} wraps it. Thread: any. */
    interface Running {
        /** Called once, with the {@link Server} that wraps this: the engine may find it again (the client's in-memory dialer). */
        void started(Server server);

        /** The main port. */
        int port();

        /** The second HTTPS listener's port, or -1. */
        int httpsPort();

        /** The teleport listener's port, or -1. */
        int teleportPort();

        /** NIO, EPOLL or IO_URING: the transport chosen. */
        Transport transport();

        /** The counters of every loop of every listener, summed. */
        Metrics metrics();

        /** Stops accepting, gives connections {@code graceMillis}, then frees the loops and everything started with them. */
        void stop(long graceMillis);
    }

    /** A server whose one loop runs on the caller's thread, over an in-memory socket. */
    interface Wire extends AutoCloseable {
        /**
         * Writes {@code request} to the connection (a new one when the last one closed) and runs the loop
         * until {@code expected} responses arrived or the connection closed.
         *
         * @throws IllegalStateException when none arrives within {@code timeoutMillis}, or a response is malformed
         */
        List<Reply> exchange(byte[] request, int expected, boolean head, long timeoutMillis);

        Metrics metrics();

        @Override
        void close();
    }

    /** One response as {@link Wire#exchange} read it. */
    record Reply(int status, List<String[]> headers, byte[] body) {
    }

    /**
     * What a server's response offers the {@code after} filter: when the handler went {@code async()},
     * the after-handler runs on the completion's answer once it comes. The server's responses implement it.
     */
    interface AfterHook {
        void afterHandler(Handler handler, Request req) throws Exception;
    }

    /**
     * One route as the router takes it: the user's handler with the filters, group filters and
     * exception mapping already around it, and where it runs ({@code blocking}: off the loop, with
     * {@code timeoutMillis}; {@code streaming}: on the loop, body as it arrives).
     */
    record Route(String method, String path, Handler handler, boolean blocking, boolean streaming, long timeoutMillis) {
    }

    /**
     * How the router's own answers (404, 405, 501, OPTIONS) are decorated: for every path
     * ({@code path} null) or for one path of a group; {@code blocking}: they run off the loop.
     */
    record BuiltIns(String path, UnaryOperator<Handler> decorator, boolean blocking) {
    }

    /** The routes at start, in registration order. */
    record Routes(List<Route> routes, List<BuiltIns> builtIns, Handler notFound) {
    }

    /**
     * Everything {@code start()} needs from the builder, fixed when it is called. Made by
     * {@link Server.Builder} only.
     */
    final class Plan {
        private final Server.Builder b;
        private final ServerConfig config;
        private final Routes routes;

        Plan(Server.Builder b, ServerConfig config, Routes routes) {
            this.b = b;
            this.config = config;
            this.routes = routes;
        }

        /** The settings, fixed and checked ({@link Server.Builder#settings()}). */
        public ServerConfig config() {
            return config;
        }

        /** The routes, the operations endpoints among them. */
        public Routes routes() {
            return routes;
        }

        /** Response compression, or null: off. */
        public Compression compression() {
            return b.compression;
        }

        /** Whether every routed request gets an id. */
        public boolean requestIds() {
            return b.requestIds;
        }

        /** The access log, or null. */
        public dev.peregrine.web.AccessLog accessLog() {
            return b.accessLog;
        }

        /** The TLS of the main port ({@code tls}) or of the second HTTPS port ({@code https}), or null. */
        public dev.peregrine.tls.TlsConfig tls() {
            return b.tlsConfig;
        }

        /** Whether {@link #tls()} is the main port's ({@code tls}) rather than a second port's ({@code https}). */
        public boolean tlsOnMainPort() {
            return b.tlsOnMainPort;
        }

        /** The second HTTPS port, or -1. */
        public int httpsPort() {
            return b.httpsPort;
        }

        /** The main port's PROXY protocol, or null. */
        public dev.peregrine.proxy.ProxyProtocol proxyProtocol() {
            return b.proxyProtocol;
        }

        /** The second HTTPS port's PROXY protocol, or null. */
        public dev.peregrine.proxy.ProxyProtocol httpsProxyProtocol() {
            return b.httpsProxyProtocol;
        }

        /** The teleport port, or -1: none. */
        public int teleportPort() {
            return b.teleportPort;
        }

        /** The teleport listener's TLS, or null. */
        public dev.peregrine.tls.TlsConfig teleportTls() {
            return b.teleportTls;
        }

        /** HTTP/2's limits, or null: no HTTP/2. */
        public Http2Options http2() {
            return b.http2 ? b.http2Options : null;
        }

        /** {@code blockedLoopWarning} in ms (0: off). */
        public long blockedLoopWarningMillis() {
            return b.blockedLoopWarningMillis;
        }

        /** {@code busyLoopWarning}'s share in percent (0: off). */
        public int busyLoopPercent() {
            return b.busyLoopPercent;
        }

        /** {@code busyLoopWarning}'s interval in ms. */
        public long busyLoopIntervalMillis() {
            return b.busyLoopIntervalMillis;
        }

        /** What routes held open (static files' caches), closed once the loops stopped. */
        public List<AutoCloseable> closeAtStop() {
            return List.copyOf(b.closeAtStop);
        }

        /** What a module stored on the builder with {@link ServerEngine#extension(Server.Builder, Class, Object)}, or null. */
        public <T> T extension(Class<T> type) {
            return type.cast(b.extensions.get(type));
        }
    }

    /** What a module stored on {@code b} under {@code type} (protocol switches, say), or null. */
    static <T> T extension(Server.Builder b, Class<T> type) {
        return type.cast(b.extensions.get(type));
    }

    /** Stores {@code value} on {@code b} under {@code type}; {@link Plan#extension} hands it to the engine at start. */
    static <T> void extension(Server.Builder b, Class<T> type, T value) {
        b.extensions.put(type, type.cast(value));
    }

    /** The counters of a started server's loops, for {@link Metrics}: made by the engine. */
    record Counts(long[] loops, long[] rejectedByStatus, long[] http2, double[] durationBounds, List<DurationSeries> durations) {
        /** The snapshot these counts make. */
        public Metrics metrics() {
            return new Metrics(this);
        }
    }

    /** One (route, method, status) series of request durations: bucket counts (as {@link Counts#durationBounds()}) and the sum in ns. */
    record DurationSeries(String route, String method, int status, long[] buckets, long sumNanos) {
    }
}
