package dev.peregrine.transport.epoll;

import dev.peregrine.transport.NativeProbe;

/**
 * Whether the epoll transport can run here, asked without risk: this class names no Netty type, and
 * the first question loads Netty (and its native library) inside a guard, so a server on macOS, on
 * Windows, on musl, on an old kernel or without the Netty jars on the class path gets a reason
 * instead of an error. The answer is computed once per class loader.
 *
 * <p>Thread: any.
 */
public final class EpollAvailability {
    private EpollAvailability() {
    }

    /** Whether {@link EpollTransport} can start here. */
    public static boolean isAvailable() {
        return Holder.REASON == null;
    }

    /** {@code null} when epoll can be used, else why not, in one line. */
    public static String unavailabilityReason() {
        return Holder.REASON;
    }

    /** Computes the answer on first use (class initialisation is the JVM's once-only, thread-safe lazy init). */
    private static final class Holder {
        static final String REASON = probe();

        private Holder() {
        }

        private static String probe() {
            // A lambda, not a method reference: NettyEpoll is resolved inside the probe's guard.
            return NativeProbe.reason("epoll", "netty-transport-native-epoll", () -> NettyEpoll.unavailabilityReason());
        }
    }
}
