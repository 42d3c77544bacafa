package dev.peregrine.transport.iouring;

import dev.peregrine.transport.NativeProbe;

/**
 * Whether the io_uring transport can run here, asked without risk: this class names no Netty type, and
 * the first question loads Netty's io_uring classes (and its native library, which sets up a probe
 * ring) inside a guard, so a server on another OS, on a kernel without io_uring, under a seccomp
 * profile or {@code kernel.io_uring_disabled} that forbids it, or without the jar on the class path
 * gets a reason instead of an error. The answer is computed once per class loader.
 *
 * <p>Thread: any.
 */
public final class IoUringAvailability {
    private IoUringAvailability() {
    }

    /** Whether {@link IoUringTransport} can start here. */
    public static boolean isAvailable() {
        return Holder.REASON == null;
    }

    /** {@code null} when io_uring can be used, else why not, in one line. */
    public static String unavailabilityReason() {
        return Holder.REASON;
    }

    private static final class Holder {
        static final String REASON = probe();

        private Holder() {
        }

        private static String probe() {
            // A lambda, not a method reference: NettyIoUring is resolved inside the probe's guard.
            return NativeProbe.reason("io_uring", "netty-transport-native-io_uring", () -> NettyIoUring.unavailabilityReason());
        }
    }
}
