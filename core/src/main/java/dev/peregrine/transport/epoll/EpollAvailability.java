package dev.peregrine.transport.epoll;

import java.util.Locale;

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
            String os = System.getProperty("os.name", "unknown");
            if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
                return "epoll needs Linux, this is " + os;
            }
            try {
                return firstLine(NettyEpoll.unavailabilityReason());
            } catch (LinkageError e) {
                // NoClassDefFoundError: netty-transport-native-epoll is not on the class path.
                return "netty-transport-native-epoll cannot be loaded (" + firstLine(String.valueOf(e.getMessage())) + ")";
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
