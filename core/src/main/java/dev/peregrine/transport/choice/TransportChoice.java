package dev.peregrine.transport.choice;

import dev.peregrine.Transport;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.epoll.EpollAvailability;
import dev.peregrine.transport.epoll.EpollTransport;
import dev.peregrine.transport.nio.NioTransport;

import java.util.function.Supplier;

/**
 * Which transport a server's or a client's loops start on: {@link Transport#NIO} and {@link Transport#EPOLL} as asked (a
 * forced epoll that cannot run fails with the reason), {@link Transport#AUTO} epoll where it can run,
 * else NIO after one INFO line saying why.
 */
public final class TransportChoice {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    private TransportChoice() {
    }

    public static TransportEngine select(Transport kind) {
        return select(kind, EpollAvailability::unavailabilityReason);
    }

    /** @param epollUnavailable answers null when epoll can run, else why not */
    static TransportEngine select(Transport kind, Supplier<String> epollUnavailable) {
        switch (kind) {
            case NIO:
                return new NioTransport();
            case EPOLL: {
                String why = epollUnavailable.get();
                if (why != null) {
                    throw new IllegalStateException("transport 'epoll' requested but unavailable: " + why);
                }
                return new EpollTransport();
            }
            default: {
                String why = epollUnavailable.get();
                if (why == null) {
                    return new EpollTransport();
                }
                LOG.log(System.Logger.Level.INFO, "epoll transport unavailable ({0}); using nio", why);
                return new NioTransport();
            }
        }
    }
}
