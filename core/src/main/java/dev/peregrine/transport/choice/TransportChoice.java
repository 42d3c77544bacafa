package dev.peregrine.transport.choice;

import dev.peregrine.Transport;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.epoll.EpollAvailability;
import dev.peregrine.transport.epoll.EpollTransport;
import dev.peregrine.transport.iouring.IoUringAvailability;
import dev.peregrine.transport.iouring.IoUringTransport;
import dev.peregrine.transport.nio.NioTransport;

import java.util.function.Supplier;

/**
 * Which transport a server's or a client's loops start on: {@link Transport#NIO} and {@link Transport#EPOLL} as asked (a
 * forced epoll that cannot run fails with the reason), {@link Transport#IO_URING} where it can run,
 * else, after one INFO line saying why, epoll or NIO; {@link Transport#AUTO} epoll where it can run,
 * else NIO after one INFO line saying why. AUTO does not pick io_uring: it has not been measured faster
 * than epoll here (docs/transports.md).
 */
public final class TransportChoice {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    private TransportChoice() {
    }

    public static TransportEngine select(Transport kind) {
        return select(kind, EpollAvailability::unavailabilityReason, IoUringAvailability::unavailabilityReason);
    }

    /** @param epollUnavailable answers null when epoll can run, else why not */
    static TransportEngine select(Transport kind, Supplier<String> epollUnavailable) {
        return select(kind, epollUnavailable, IoUringAvailability::unavailabilityReason);
    }

    /**
     * @param epollUnavailable answers null when epoll can run, else why not
     * @param uringUnavailable the same for io_uring
     */
    static TransportEngine select(Transport kind, Supplier<String> epollUnavailable, Supplier<String> uringUnavailable) {
        switch (kind) {
            case NIO:
                return new NioTransport();
            case EPOLL: {
                String why = epollUnavailable.get();
                if (why != null) {
                    throw new IllegalStateException("transport 'epoll' requested but unavailable: " + why);
                }
                return EpollTransport.create();
            }
            case IO_URING: {
                String why = uringUnavailable.get();
                if (why == null) {
                    return IoUringTransport.create();
                }
                String epollWhy = epollUnavailable.get();
                if (epollWhy == null) {
                    LOG.log(System.Logger.Level.INFO, "io_uring transport unavailable ({0}); using epoll", why);
                    return EpollTransport.create();
                }
                LOG.log(System.Logger.Level.INFO, "io_uring transport unavailable ({0}), epoll too ({1}); using nio", why, epollWhy);
                return new NioTransport();
            }
            default: {
                String why = epollUnavailable.get();
                if (why == null) {
                    return EpollTransport.create();
                }
                LOG.log(System.Logger.Level.INFO, "epoll transport unavailable ({0}); using nio", why);
                return new NioTransport();
            }
        }
    }
}
