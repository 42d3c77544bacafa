package dev.peregrine.transport.iouring;

import dev.peregrine.transport.NativeTransport;
import dev.peregrine.transport.TransportEngine;

/**
 * The Linux io_uring transport: a {@link NativeTransport} whose loops' native side is {@link IoUringIo}
 * (one ring per loop thread; multishot accept; readiness of connections as poll completions and sends
 * as ring entries, {@link NettyIoUring} says what goes through the ring, {@link IoUringEndpoint} how no
 * readiness is lost).
 *
 * <p>Needs {@code netty-transport-native-io_uring} and a kernel that allows io_uring: ask
 * {@link IoUringAvailability} first; starting fails with the reason where it cannot run.
 */
public final class IoUringTransport {
    private IoUringTransport() {
    }

    /** The engine ({@code name()} is {@code "io_uring"}). */
    public static TransportEngine create() {
        return new NativeTransport("io_uring", IoUringAvailability::unavailabilityReason,
                (at, backlog, reusePort) -> Listening.listen(at, backlog, reusePort), IoUringIo::new);
    }
}
