package dev.peregrine.loop;

import dev.peregrine.ServerConfig;
import dev.peregrine.route.Router;

/**
 * Everything a transport needs to run the loops of one listener, beside the user's settings: the
 * port, the router, the {@link EndpointLayer} over its sockets (TLS) if any, the protocols a
 * connection may switch to, and the executor of blocking handlers. Kept out of
 * {@link ServerConfig}, which holds only the settings a user chose. Immutable.
 *
 * <p>Thread: any.
 */
public final class LoopSetup {
    private final ServerConfig config;
    private final int port;
    private final Router router;
    private final EndpointLayer layer;
    private final ProtocolSwitches switches;
    private final OffLoopExecutor blockingExecutor;
    private final dev.peregrine.Compression compression;
    /** Request ids and access log ({@code dev.peregrine.web}); see {@link #withTracing}. */
    private final boolean requestIds;
    private final dev.peregrine.web.AccessLog accessLog;

    public LoopSetup(ServerConfig config, int port, Router router, EndpointLayer layer, ProtocolSwitches switches,
                     OffLoopExecutor blockingExecutor) {
        this.config = config;
        this.port = port;
        this.router = router;
        this.layer = layer;
        this.switches = switches;
        this.blockingExecutor = blockingExecutor;
        this.compression = null;
        this.requestIds = false;
        this.accessLog = null;
    }

    private LoopSetup(LoopSetup s, int port, EndpointLayer layer, dev.peregrine.Compression compression) {
        this(s, port, layer, compression, s.requestIds, s.accessLog);
    }

    private LoopSetup(LoopSetup s, int port, EndpointLayer layer, dev.peregrine.Compression compression,
                      boolean requestIds, dev.peregrine.web.AccessLog accessLog) {
        this.config = s.config;
        this.port = port;
        this.router = s.router;
        this.layer = layer;
        this.switches = s.switches;
        this.blockingExecutor = s.blockingExecutor;
        this.compression = compression;
        this.requestIds = requestIds;
        this.accessLog = accessLog;
    }

    /** The same with request ids on or off and an access log ({@code null}: none). */
    public LoopSetup withTracing(boolean requestIds, dev.peregrine.web.AccessLog accessLog) {
        return new LoopSetup(this, port, layer, compression, requestIds, accessLog);
    }

    /** Whether requests get ids ({@code X-Request-Id}). */
    public boolean requestIds() {
        return requestIds;
    }

    /** The access log, or null. */
    public dev.peregrine.web.AccessLog accessLog() {
        return accessLog;
    }

    /** The same with response compression ({@code null}: none). */
    public LoopSetup withCompression(dev.peregrine.Compression compression) {
        return new LoopSetup(this, port, layer, compression);
    }

    /** Response compression settings, or null when responses are sent as they are. */
    public dev.peregrine.Compression compression() {
        return compression;
    }

    /** Plain listener on {@code config}'s port, no protocol switches, a blocking executor of its own (tests, tools). */
    public static LoopSetup of(ServerConfig config, Router router) {
        return new LoopSetup(config, config.port(), router, null, ProtocolSwitches.NONE,
                new OffLoopExecutor(config.blockingPoolSize()));
    }

    /** The same for another listener: {@code port}, with {@code layer} (TLS) over its sockets. */
    public LoopSetup forListener(int port, EndpointLayer layer) {
        return new LoopSetup(this, port, layer, compression);
    }

    public ServerConfig config() {
        return config;
    }

    /** The port to bind (0 for any free one). */
    public int port() {
        return port;
    }

    public Router router() {
        return router;
    }

    /** The layer over every accepted socket (TLS), or null. */
    public EndpointLayer layer() {
        return layer;
    }

    public ProtocolSwitches switches() {
        return switches;
    }

    public OffLoopExecutor blockingExecutor() {
        return blockingExecutor;
    }
}
