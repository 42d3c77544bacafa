package dev.peregrine.transport;

import dev.peregrine.ServerConfig;
import dev.peregrine.route.Router;

import java.io.IOException;

/** A way of running event loops over sockets (Java NIO, Linux epoll). */
public interface Transport {
    /** Short name for logs and settings, e.g. {@code "nio"}. */
    String name();

    /**
     * Binds the configured address and starts {@code config.threads()} loops serving {@code router}.
     * Returns once the listening sockets are bound, so that {@link TransportServer#port()} is known.
     * A transport enforces {@code config.maxConnections()} with one {@link ConnectionLimit} shared by
     * its loops (acquire before accepting, pause accepting when refused, release when a connection's
     * endpoint closes) and drives each loop's timers through {@code LoopContext.runTimers}.
     */
    TransportServer start(ServerConfig config, Router router) throws IOException;
}
