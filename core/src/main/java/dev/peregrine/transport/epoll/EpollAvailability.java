package dev.peregrine.transport.epoll;

import dev.peregrine.transport.NativeProbe;

/**
 * Whether the epoll transport can run here, asked without risk: this class names no Netty type, and
 * the first question loads Netty (and its native library) inside a guard ({@link NativeProbe}), so a
 * server on macOS, on Windows, on musl, on an old kernel or without the Netty jars on the class path
 * gets a reason instead of an error. The answer is computed once per class loader.
 *
 * <p>Thread: any.
 */
public final class EpollAvailability {
    private static final NativeProbe PROBE = new NativeProbe("epoll", "netty-transport-native-epoll",
            () -> NettyEpoll.unavailabilityReason());

    private EpollAvailability() {
    }

    /** Whether {@link EpollTransport} can start here. */
    public static boolean isAvailable() {
        return PROBE.available();
    }

    /** {@code null} when epoll can be used, else why not, in one line. */
    public static String unavailabilityReason() {
        return PROBE.reason();
    }
}
