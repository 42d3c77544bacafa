package dev.peregrine.server;

import dev.peregrine.Compression;
import dev.peregrine.ServerConfig;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.LoopConfig;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.route.Router;
import dev.peregrine.web.AccessLog;

/**
 * What the HTTP/1.1 server needs on every loop beside the user's settings: the router, the protocols
 * a connection may switch to, the executor of blocking handlers, compression and tracing. Each loop
 * makes its {@link ServerLoop} from it ({@link #listener}). Immutable.
 *
 * <p>Thread: any.
 */
public final class ServerSetup {
    private final ServerConfig config;
    private final Router router;
    private final ProtocolSwitches switches;
    private final OffLoopExecutor blockingExecutor;
    private final Compression compression;
    private final boolean requestIds;
    private final AccessLog accessLog;

    /**
     * @param compression response compression, or null
     * @param requestIds  whether requests get ids ({@code X-Request-Id})
     * @param accessLog   the access log, or null
     */
    public ServerSetup(ServerConfig config, Router router, ProtocolSwitches switches, OffLoopExecutor blockingExecutor,
                       Compression compression, boolean requestIds, AccessLog accessLog) {
        this.config = config;
        this.router = router;
        this.switches = switches;
        this.blockingExecutor = blockingExecutor;
        this.compression = compression;
        this.requestIds = requestIds;
        this.accessLog = accessLog;
    }

    /** Plain: no protocol switches, compression or tracing, a blocking executor of its own (tests, tools). */
    public static ServerSetup of(ServerConfig config, Router router) {
        return new ServerSetup(config, router, ProtocolSwitches.NONE, new OffLoopExecutor(config.blockingPoolSize()),
                null, false, null);
    }

    /** The loops' setup for a listener on {@code port} with {@code layer} (TLS, PROXY; or null) over its sockets. */
    public LoopSetup listener(int port, EndpointLayer layer) {
        return new LoopSetup(loopConfig(config), port, layer, ctx -> new ServerLoop(ctx, this));
    }

    /**
     * The part of the server's settings the loops read. The largest pooled buffer holds a whole
     * request held across reads (head and body within the limits) plus one read's worth.
     */
    public static LoopConfig loopConfig(ServerConfig config) {
        return LoopConfig.builder()
                .threads(config.threads())
                .readBufferSize(config.readBufferSize())
                .writeBufferSize(config.writeBufferSize())
                .largestPooledBuffer(config.maxHeadSize() + (int) Math.min(config.maxBodySize(), Integer.MAX_VALUE / 2)
                        + config.readBufferSize())
                .maxPendingOutput(config.maxPendingOutput())
                .writeTimeoutMillis(config.writeTimeoutMillis())
                .drainTimeoutMillis(config.drainTimeoutMillis())
                .host(config.host())
                .backlog(config.backlog())
                .reusePort(config.reusePort())
                .recvRingBuffers(config.ioUringRecvBuffers())
                .maxConnections(config.maxConnections())
                .build();
    }

    /** The server's settings (what the loops read of them is {@link #loopConfig}). */
    public ServerConfig config() {
        return config;
    }

    /** The same on the configured port, with no layer (tests, tools). */
    public LoopSetup listener() {
        return listener(config.port(), null);
    }

    public Router router() {
        return router;
    }

    public ProtocolSwitches switches() {
        return switches;
    }

    public OffLoopExecutor blockingExecutor() {
        return blockingExecutor;
    }

    /** Response compression settings, or null when responses are sent as they are. */
    public Compression compression() {
        return compression;
    }

    public boolean requestIds() {
        return requestIds;
    }

    /** The access log, or null. */
    public AccessLog accessLog() {
        return accessLog;
    }
}
