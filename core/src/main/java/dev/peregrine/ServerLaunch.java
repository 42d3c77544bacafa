package dev.peregrine;

import dev.peregrine.loop.LoopContext;
import dev.peregrine.route.Router;
import dev.peregrine.server.LoopWatchdog;
import dev.peregrine.server.ServerLoop;
import dev.peregrine.server.ServerSetup;
import dev.peregrine.tls.engine.TlsContext;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.TransportServer;
import dev.peregrine.transport.choice.TransportChoice;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Server.Builder#start()}'s work: turns a builder into a running {@link Server}. In order: the
 * settings are fixed and checked, then everything that can fail without a port is built (the TLS
 * context, the router, the blocking executor), then the listeners are bound (the main port, then a
 * second HTTPS port); if a bind fails, everything made so far is closed again before the exception
 * leaves, so a failed start holds no port, thread or file.
 *
 * <p>Thread: the caller of {@code start()}.
 */
final class ServerLaunch {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    private ServerLaunch() {
    }

    static Server start(Server.Builder b) {
        if (!b.unknownSettings.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "unknown Peregrine settings ignored (see docs/settings.md): {0}",
                    String.join(", ", b.unknownSettings));
        }
        ServerConfig config = b.settings();
        if (b.httpsProxyProtocol != null && (b.tlsConfig == null || b.tlsOnMainPort)) {
            throw new IllegalStateException("httpsProxyProtocol is set but the server has no second HTTPS port"
                    + " (https(port, tls)); the main port's setting is proxyProtocol");
        }
        OpsEndpoints.register(b, b.self);
        dev.peregrine.jfr.PeregrineEvents.init(); // JFR event types registered now, not at the first request
        TransportEngine transport = TransportChoice.select(config.transport());
        Transport chosen = Transport.parse(transport.name());
        if (b.http2) {
            b.protocolSwitches = dev.peregrine.server.Http2Setup.register(b.protocolSwitches, b.http2Options.settings());
        }
        // Built before binding, so that a bad key or a missing provider fails before any port is taken.
        TlsContext tls = b.tlsConfig == null ? null
                : TlsContext.create(b.tlsConfig, new ArrayList<>(b.protocolSwitches.alpn().keySet()));
        Map<Handler, String> routeNames = new IdentityHashMap<>();
        Router router = b.router(routeNames);
        dev.peregrine.offloop.OffLoopExecutor blockingExecutor = new dev.peregrine.offloop.OffLoopExecutor(b.blockingPoolSize);
        ServerSetup setup = new ServerSetup(config, router, b.protocolSwitches,
                blockingExecutor, b.compression, b.requestIds, b.accessLog);
        TransportServer running = null;
        TransportServer runningTls = null;
        TransportServer runningTeleport = null;
        // Built before binding too; teleport over TLS is chosen by its ALPN name alone.
        TlsContext teleportTls = b.teleportTls == null ? null
                : TlsContext.create(b.teleportTls, List.of(dev.peregrine.server.AddedListener.TELEPORT_ALPN));
        int binding = config.port(); // the port of the listener being started, for the failure's message
        if (b.accessLog != null) {
            b.accessLog.start();
        }
        try {
            running = transport.start(setup.listener(config.port(), layer(b.tlsOnMainPort ? tls : null, b.proxyProtocol)));
            if (tls != null && !b.tlsOnMainPort) {
                binding = b.httpsPort;
                runningTls = transport.start(setup.listener(b.httpsPort, layer(tls, b.httpsProxyProtocol)));
            }
            if (b.teleportListener != null) {
                binding = b.teleportPort;
                runningTeleport = transport.start(b.teleportListener.listener(setup, b.teleportPort, teleportTls));
                LOG.log(System.Logger.Level.INFO, "Peregrine teleport on port {0}", String.valueOf(runningTeleport.port()));
            }
            LOG.log(System.Logger.Level.INFO, "Peregrine listening on {0}:{1}{2} ({3} transport, {4} loop{5})",
                    config.host(), String.valueOf(running.port()),
                    runningTls != null ? ", HTTPS on " + runningTls.port() : b.tlsOnMainPort ? " (HTTPS)" : "",
                    transport.name(),
                    String.valueOf(config.threads()), config.threads() == 1 ? "" : "s");
            Server server = new Server(config, running, runningTls, tls, blockingExecutor, chosen,
                    watchdog(running, runningTls, routeNames, b));
            server.drainDelayMillis = b.drainDelayMillis;
            server.runningTeleport = runningTeleport;
            server.accessLog = b.accessLog;
            List<AutoCloseable> atStop = new ArrayList<>(b.closeAtStop);
            if (teleportTls != null) {
                atStop.add(teleportTls::close);
            }
            server.closeAtStop = List.copyOf(atStop);
            b.self.server = server;
            if (b.shutdownHook) {
                server.addShutdownHook();
            }
            return server;
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
            if (b.accessLog != null) {
                b.accessLog.close();
            }
            throw new UncheckedIOException("cannot start on " + config.host() + ":"
                    + binding + ": " + e.getMessage(), e);
        }
    }

    /** The watchdog over every loop of both listeners, or null when {@code blockedLoopWarning} and {@code busyLoopWarning} are off. */
    private static LoopWatchdog watchdog(TransportServer running, TransportServer runningTls,
                                         Map<Handler, String> routeNames, Server.Builder b) {
        if (b.blockedLoopWarningMillis <= 0 && b.busyLoopPercent <= 0) {
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
        return new LoopWatchdog(loops, routeNames, b.blockedLoopWarningMillis, b.busyLoopPercent, b.busyLoopIntervalMillis);
    }

    /** A listener's layers: PROXY (if {@code proxy}) below TLS (if {@code tls}), or none. */
    private static dev.peregrine.loop.EndpointLayer layer(TlsContext tls, dev.peregrine.proxy.ProxyProtocol proxy) {
        return proxy == null ? tls : new dev.peregrine.proxy.engine.ProxyLayer(proxy, tls);
    }
}
