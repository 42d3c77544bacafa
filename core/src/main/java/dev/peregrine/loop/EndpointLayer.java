package dev.peregrine.loop;

/**
 * A layer put between a transport's socket and the {@link Connection} of every connection a
 * listener accepts, such as TLS ({@code dev.peregrine.tls.engine.TlsContext}). Transports do not know about
 * layers: they hand each accepted socket to {@link LoopContext#newConnection}, which applies the
 * listener's layer if its {@link LoopSetup} has one.
 *
 * <p>Thread: {@link #wrap} runs on the loop thread that owns the new connection.
 */
public interface EndpointLayer {
    /**
     * Wraps a freshly accepted socket. The returned endpoint is handed to the new connection's
     * constructor and then told its connection through {@link LayeredEndpoint#attach}.
     *
     * @param socket the transport's endpoint for the accepted socket
     * @param ctx the owning loop's context (buffer pool, timers, and {@link LoopContext#eventLoop()}
     *            for work that must come back to the loop from other threads)
     */
    LayeredEndpoint wrap(SocketEndpoint socket, LoopContext ctx);

    /** Releases what the layer holds (threads, keys) once every loop using it has stopped. Thread: any. */
    void close();
}
