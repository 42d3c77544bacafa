package dev.peregrine.proxy.engine;

import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.LayeredEndpoint;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.proxy.ProxyProtocol;

/**
 * The PROXY protocol as the lowest {@link EndpointLayer} of a listener: each accepted socket gets a
 * {@link ProxyEndpoint}, and the listener's own layer (TLS), if any, goes on top of it, so the header
 * is read before the TLS handshake begins:
 * <pre>
 *   transport socket -&gt; ProxyEndpoint (header, then bytes as they are) -&gt; [TlsEndpoint] -&gt; Connection
 * </pre>
 * A listener without this layer pays nothing. Thread: {@link #wrap} on the accepting loop.
 */
public final class ProxyLayer implements EndpointLayer {
    private final ProxyProtocol settings;
    private final EndpointLayer above;

    /**
     * @param settings who may send a header
     * @param above    the listener's own layer over the PROXY stage (TLS), or null
     */
    public ProxyLayer(ProxyProtocol settings, EndpointLayer above) {
        this.settings = java.util.Objects.requireNonNull(settings, "settings");
        this.above = above;
    }

    @Override
    public LayeredEndpoint wrap(SocketEndpoint socket, LoopContext ctx) {
        ProxyEndpoint proxy = new ProxyEndpoint(socket, ctx, settings);
        return above == null ? proxy : above.wrap(proxy, ctx); // the layer above attaches the one below
    }

    /** Holds nothing of its own; the layer above is closed by whoever made it (the server closes TLS). */
    @Override
    public void close() {
    }
}
