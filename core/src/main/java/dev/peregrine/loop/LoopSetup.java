package dev.peregrine.loop;

import java.util.function.Function;

/**
 * Everything a transport needs to run the loops of one listener, beside the user's settings: the
 * port, the {@link EndpointLayer} over its sockets (TLS, PROXY) if any, and what makes the protocol of
 * each accepted connection, beside the loops' {@link LoopConfig}. Immutable.
 *
 * <p>Thread: any.
 */
public final class LoopSetup {
    private final LoopConfig config;
    private final int port;
    private final EndpointLayer layer;
    private final Function<LoopContext, ProtocolFactory> protocols;

    /**
     * @param port      the port to bind (0 for any free one; -1 for loops with no listener)
     * @param layer     the layer over every accepted socket, or null
     * @param protocols makes each loop's {@link ProtocolFactory} (null for loops with no listener)
     */
    public LoopSetup(LoopConfig config, int port, EndpointLayer layer, Function<LoopContext, ProtocolFactory> protocols) {
        this.config = config;
        this.port = port;
        this.layer = layer;
        this.protocols = protocols;
    }

    /** Loops with no listener, for outbound connections only (the client). */
    public static LoopSetup outbound(LoopConfig config) {
        return new LoopSetup(config, -1, null, null);
    }

    public LoopConfig config() {
        return config;
    }

    /** The port to bind (0 for any free one). */
    public int port() {
        return port;
    }

    /** The layer over every accepted socket (TLS, PROXY), or null. */
    public EndpointLayer layer() {
        return layer;
    }

    /** Makes each loop's factory of accepted connections' protocols, or null for loops with no listener. */
    public Function<LoopContext, ProtocolFactory> protocols() {
        return protocols;
    }
}
