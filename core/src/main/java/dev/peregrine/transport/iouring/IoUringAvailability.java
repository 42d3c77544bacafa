package dev.peregrine.transport.iouring;

import java.util.Locale;

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
            String os = System.getProperty("os.name", "unknown");
            if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
                return "io_uring needs Linux, this is " + os;
            }
            try {
                return firstLine(NettyIoUring.unavailabilityReason());
            } catch (LinkageError e) {
                // NoClassDefFoundError: netty-transport-native-io_uring is not on the class path.
                return "netty-transport-native-io_uring cannot be loaded (" + firstLine(String.valueOf(e.getMessage())) + ")";
            }
        }

        private static String firstLine(String s) {
            if (s == null) {
                return null;
            }
            int nl = s.indexOf('\n');
            return nl < 0 ? s : s.substring(0, nl).trim();
        }
    }
}
