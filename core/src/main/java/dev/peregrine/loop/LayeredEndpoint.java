package dev.peregrine.loop;

/**
 * A {@link SocketEndpoint} that transforms bytes on their way (TLS) and may therefore hold bytes the
 * socket does not know about: decrypted input not yet read, or encrypted output not yet written.
 *
 * <p><b>Contract with {@link Connection}.</b> The connection reads only when the transport reports
 * readability, so a layer holding input of its own must ask for another {@link Connection#onReadable}
 * itself (through {@link EventLoop#execute}); and it reports its own unsent output through
 * {@link SocketEndpoint#flushBuffered}, which the connection calls first on every writability event.
 *
 * <p>Thread: the owning loop thread only.
 */
public interface LayeredEndpoint extends SocketEndpoint {
    /** Tells the layer which connection it serves; called once, right after the connection is built. */
    void attach(Connection connection);
}
