package dev.peregrine.transport.iouring;

import dev.peregrine.transport.NativeProbe;

/**
 * Whether the io_uring transport can run here, asked without risk: this class names no Netty type, and
 * the first question loads Netty's io_uring classes (and its native library, which sets up a probe
 * ring) inside a guard ({@link NativeProbe}), so a server on another OS, on a kernel without io_uring,
 * under a seccomp profile or {@code kernel.io_uring_disabled} that forbids it, or without the jar on
 * the class path gets a reason instead of an error. Computed once per class loader.
 *
 * <p>Thread: any.
 */
public final class IoUringAvailability {
    private static final NativeProbe PROBE = new NativeProbe("io_uring", "netty-transport-native-io_uring",
            () -> NettyIoUring.unavailabilityReason());

    private IoUringAvailability() {
    }

    /** Whether {@link IoUringTransport} can start here. */
    public static boolean isAvailable() {
        return PROBE.available();
    }

    /** {@code null} when io_uring can be used, else why not, in one line. */
    public static String unavailabilityReason() {
        return PROBE.reason();
    }
}
