package dev.peregrine.loop;

/** One event loop thread, as seen from outside it. */
public interface EventLoop {
    /** Runs {@code task} on the loop thread, soon. Thread: any. Tasks offered after shutdown are dropped. */
    void execute(Runnable task);

    /** Whether the caller is this loop's thread. Thread: any. */
    boolean inEventLoop();

    /**
     * Opens a TCP connection from this loop to {@code address} (already resolved: name lookups block
     * and belong off the loop). Once connected, the socket is wrapped by {@code layer} when one is
     * given (TLS in client mode) and becomes a {@link Connection} on this loop speaking
     * {@code protocol}; {@code callback} hears of it, or of the failure, including no connection
     * within {@code timeoutMillis}. Thread: this loop.
     */
    void connect(java.net.InetSocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                 ConnectCallback callback);

    /**
     * Like {@link #connect}, to a Unix domain socket (JDK 16+ {@code UnixDomainSocketAddress}), with no
     * layer: a local peer needs no TLS. Only the NIO transport can; the others fail the callback at once
     * saying so. Thread: this loop.
     */
    default void connectUnix(java.net.UnixDomainSocketAddress address, Protocol protocol, long timeoutMillis,
                             ConnectCallback callback) {
        callback.failed(new java.io.IOException("the " + getClass().getSimpleName()
                + " transport cannot connect to a Unix domain socket (" + address + "): build the client with Transport.NIO"));
    }
}
