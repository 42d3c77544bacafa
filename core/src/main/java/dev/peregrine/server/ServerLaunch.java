package dev.peregrine.server;

import dev.peregrine.Handler;
import dev.peregrine.Metrics;
import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.ServerEngine;
import dev.peregrine.Transport;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.route.Router;
import dev.peregrine.tls.engine.TlsContext;
import dev.peregrine.transport.ServerLoops;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.TransportServer;
import dev.peregrine.transport.choice.TransportChoice;
import dev.peregrine.web.AccessLog;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code Server.Builder.start()}'s work, reached through {@link Engine}: turns the API's
 * {@link ServerEngine.Plan} into running listeners. In order: everything that can fail without a port
 * is built (the TLS contexts, the router, the blocking executor), then the listeners are bound (the
 * main port, a second HTTPS port, teleport); if a bind fails, everything made so far is closed again
 * before the exception leaves, so a failed start holds no port, thread or file.
 * <pre>
 *   Plan ──> TransportChoice.select ──> HTTP/2 switches ──> TlsContext(s) ──> RouteAssembly (Router)
 *        ──> OffLoopExecutor ──> ServerSetup ──> bind: main, https, teleport ──> ServerLaunch (Running)
 * </pre>
 * The instance is the started server's {@link ServerEngine.Running}: what {@link Server} asks for its
 * ports and counters, and what stops the listeners. Thread: the caller of {@code start()}; then any.
 */
final class ServerLaunch implements ServerEngine.Running {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    static {
        // The client's in-memory dialer finds a server's loops through this slot.
        ServerLoops.install(ServerLaunch::loopsFor);
    }

    private static final Map<Server, ServerLaunch> STARTED = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private final TransportServer running;
    /** The HTTPS listener's loops, or null. */
    private final TransportServer runningTls;
    /** The teleport listener's loops, or null. */
    private final TransportServer runningTeleport;
    private final TlsContext tls;
    private final OffLoopExecutor blockingExecutor;
    private final Transport transport;
    /** Reports inline handlers that hold a loop too long; null when disabled. */
    private final LoopWatchdog watchdog;
    private final AccessLog accessLog;
    /** What routes held open and the teleport TLS, closed once the loops stopped. */
    private final List<AutoCloseable> closeAtStop;
    private Server server;
    private volatile boolean stopped;

    private ServerLaunch(TransportServer running, TransportServer runningTls, TransportServer runningTeleport,
                         TlsContext tls, OffLoopExecutor blockingExecutor, Transport transport, LoopWatchdog watchdog,
                         AccessLog accessLog, List<AutoCloseable> closeAtStop) {
        this.running = running;
        this.runningTls = runningTls;
        this.runningTeleport = runningTeleport;
        this.tls = tls;
        this.blockingExecutor = blockingExecutor;
        this.transport = transport;
        this.watchdog = watchdog;
        this.accessLog = accessLog;
        this.closeAtStop = closeAtStop;
    }

    static ServerLaunch start(ServerEngine.Plan b) {
        ServerConfig config = b.config();
        if (b.httpsProxyProtocol() != null && (b.tls() == null || b.tlsOnMainPort())) {
            throw new IllegalStateException("httpsProxyProtocol is set but the server has no second HTTPS port"
                    + " (https(port, tls)); the main port's setting is proxyProtocol");
        }
        dev.peregrine.jfr.PeregrineEvents.init(); // JFR event types registered now, not at the first request
        TransportEngine engine = TransportChoice.select(config.transport());
        Transport chosen = Transport.parse(engine.name());
        ProtocolSwitches switches = ProtocolSwitches.of(b);
        if (b.http2() != null) {
            switches = Http2Setup.register(switches, dev.peregrine.h2.Http2Settings.of(b.http2()));
        }
        // Built before binding, so that a bad key or a missing provider fails before any port is taken.
        TlsContext tls = b.tls() == null ? null : TlsContext.create(b.tls(), new ArrayList<>(switches.alpn().keySet()));
        Map<Handler, String> routeNames = new IdentityHashMap<>();
        Router router = RouteAssembly.build(b.routes(), routeNames);
        OffLoopExecutor blockingExecutor = new OffLoopExecutor(config.blockingPoolSize());
        AccessLog accessLog = b.accessLog();
        ServerSetup setup = new ServerSetup(config, router, switches, blockingExecutor, b.compression(), b.requestIds(), accessLog);
        AddedListener teleport = b.teleportPort() < 0 ? null : AddedListener.find(AddedListener.TELEPORT, "peregrine-teleport");
        TransportServer running = null;
        TransportServer runningTls = null;
        TransportServer runningTeleport;
        // Built before binding too; teleport over TLS is chosen by its ALPN name alone.
        TlsContext teleportTls = b.teleportTls() == null ? null
                : TlsContext.create(b.teleportTls(), List.of(AddedListener.TELEPORT_ALPN));
        int binding = config.port(); // the port of the listener being started, for the failure's message
        if (accessLog != null) {
            accessLog.start();
        }
        try {
            running = engine.start(setup.listener(config.port(), layer(b.tlsOnMainPort() ? tls : null, b.proxyProtocol())));
            if (tls != null && !b.tlsOnMainPort()) {
                binding = b.httpsPort();
                runningTls = engine.start(setup.listener(b.httpsPort(), layer(tls, b.httpsProxyProtocol())));
            }
            runningTeleport = null;
            if (teleport != null) {
                binding = b.teleportPort();
                runningTeleport = engine.start(teleport.listener(setup, b.teleportPort(), teleportTls));
                LOG.log(System.Logger.Level.INFO, "Peregrine teleport on port {0}", String.valueOf(runningTeleport.port()));
            }
            LOG.log(System.Logger.Level.INFO, "Peregrine listening on {0}:{1}{2} ({3} transport, {4} loop{5})",
                    config.host(), String.valueOf(running.port()),
                    runningTls != null ? ", HTTPS on " + runningTls.port() : b.tlsOnMainPort() ? " (HTTPS)" : "",
                    engine.name(),
                    String.valueOf(config.threads()), config.threads() == 1 ? "" : "s");
            List<AutoCloseable> atStop = new ArrayList<>(b.closeAtStop());
            if (teleportTls != null) {
                atStop.add(teleportTls::close);
            }
            return new ServerLaunch(running, runningTls, runningTeleport, tls, blockingExecutor, chosen,
                    watchdog(running, runningTls, routeNames, b), accessLog, List.copyOf(atStop));
        } catch (IOException e) {
            if (running != null) {
                running.close(0);
            }
            if (runningTls != null) {
                runningTls.close(0);
            }
            if (tls != null) {
                tls.close();
            }
            if (teleportTls != null) {
                teleportTls.close();
            }
            blockingExecutor.shutdown();
            if (accessLog != null) {
                accessLog.close();
            }
            throw new UncheckedIOException("cannot start on " + config.host() + ":"
                    + binding + ": " + e.getMessage(), e);
        }
    }

    /** The watchdog over every loop of both listeners, or null when {@code blockedLoopWarning} and {@code busyLoopWarning} are off. */
    private static LoopWatchdog watchdog(TransportServer running, TransportServer runningTls,
                                         Map<Handler, String> routeNames, ServerEngine.Plan b) {
        if (b.blockedLoopWarningMillis() <= 0 && b.busyLoopPercent() <= 0) {
            return null;
        }
        List<ServerLoop> loops = new ArrayList<>();
        for (LoopContext ctx : running.loops()) {
            loops.add(ServerLoop.of(ctx));
        }
        if (runningTls != null) {
            for (LoopContext ctx : runningTls.loops()) {
                loops.add(ServerLoop.of(ctx));
            }
        }
        return new LoopWatchdog(loops, routeNames, b.blockedLoopWarningMillis(), b.busyLoopPercent(), b.busyLoopIntervalMillis());
    }

    /** A listener's layers: PROXY (if {@code proxy}) below TLS (if {@code tls}), or none. */
    private static dev.peregrine.loop.EndpointLayer layer(TlsContext tls, dev.peregrine.proxy.ProxyProtocol proxy) {
        return proxy == null ? tls : new dev.peregrine.proxy.engine.ProxyLayer(proxy, tls);
    }

    /** The loops of {@code server}'s listener speaking plain HTTP or TLS ({@link ServerLoops}); none once it stopped. */
    private static List<LoopContext> loopsFor(Server server, boolean https) {
        ServerLaunch s = STARTED.get(server);
        if (s == null || s.stopped) {
            return List.of();
        }
        if (https) {
            return s.runningTls != null ? s.runningTls.loops() : s.tls != null ? s.running.loops() : List.of();
        }
        return s.tls != null && s.runningTls == null ? List.of() : s.running.loops();
    }

    @Override
    public void started(Server server) {
        this.server = server;
        STARTED.put(server, this);
    }

    @Override
    public int port() {
        return running.port();
    }

    @Override
    public int httpsPort() {
        if (runningTls != null) {
            return runningTls.port();
        }
        return tls != null ? running.port() : -1;
    }

    @Override
    public int teleportPort() {
        return runningTeleport != null ? runningTeleport.port() : -1;
    }

    @Override
    public Transport transport() {
        return transport;
    }

    @Override
    public Metrics metrics() {
        List<LoopContext> loops = new ArrayList<>(running.loops());
        if (runningTls != null) {
            loops.addAll(runningTls.loops());
        }
        if (runningTeleport != null) {
            loops.addAll(runningTeleport.loops());
        }
        return MetricsReader.read(loops);
    }

    @Override
    public void stop(long grace) {
        stopped = true;
        if (server != null) {
            STARTED.remove(server);
        }
        if (watchdog != null) {
            watchdog.close();
        }
        // Every listener begins stopping before any is waited for: the server honours one grace.
        running.beginStop(grace);
        if (runningTls != null) {
            runningTls.beginStop(grace);
        }
        if (runningTeleport != null) {
            runningTeleport.beginStop(grace);
        }
        running.awaitTermination(grace);
        if (runningTls != null) {
            runningTls.awaitTermination(grace);
        }
        if (runningTeleport != null) {
            runningTeleport.awaitTermination(grace);
        }
        if (tls != null) {
            tls.close();
        }
        blockingExecutor.shutdown();
        if (accessLog != null) {
            accessLog.close(); // after the loops: every line they queued is written
        }
        closeResources(closeAtStop);
    }

    /** Closes what routes held open (static files' caches); a failure is logged, never thrown from close(). */
    static void closeResources(List<AutoCloseable> resources) {
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, "closing " + r + " at stop failed", e);
            }
        }
    }
}
