package dev.peregrine.transport;

import dev.peregrine.loop.LoopSetup;

import java.io.IOException;

/** A way of running event loops over sockets (Java NIO, Linux epoll). */
public interface TransportEngine {
    /** Short name for logs and settings, e.g. {@code "nio"}. */
    String name();

    /**
     * Binds the configured host and {@code setup.port()} and starts {@code config.threads()} loops
     * serving the setup's router.
     * Returns once the listening sockets are bound, so that {@link TransportServer#port()} is known.
     * A transport enforces {@code config.maxConnections()} with one {@link ConnectionLimit} shared by
     * its loops (acquire before accepting, pause accepting when refused, release when a connection's
     * endpoint closes) and drives each loop's timers through {@code LoopContext.runTimers}.
     */
    TransportServer start(LoopSetup setup) throws IOException;

    /**
     * Starts {@code threads} loops that listen on nothing: loops for outbound connections only
     * ({@code EventLoop.connect}), such as an HTTP client's own. {@link TransportServer#port()} is -1.
     */
    TransportServer startLoops(LoopSetup setup, int threads) throws IOException;
}
