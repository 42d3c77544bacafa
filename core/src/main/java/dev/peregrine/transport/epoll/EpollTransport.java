package dev.peregrine.transport.epoll;

import dev.peregrine.transport.NativeTransport;
import dev.peregrine.transport.TransportEngine;

/**
 * The Linux epoll transport: a {@link NativeTransport} whose loops' native side is {@link EpollIo}
 * (edge-triggered sockets; {@link EpollEndpoint} explains how no readiness is lost).
 *
 * <p>Needs {@code netty-transport-native-epoll} and its native library: ask
 * {@link EpollAvailability} first; starting fails with the reason where it cannot run.
 */
public final class EpollTransport {
    private EpollTransport() {
    }

    /** The engine ({@code name()} is {@code "epoll"}). */
    public static TransportEngine create() {
        return new NativeTransport("epoll", EpollAvailability::unavailabilityReason,
                (at, backlog, reusePort) -> NettyEpoll.Fd.listen(at, backlog, reusePort), EpollIo::new);
    }
}
