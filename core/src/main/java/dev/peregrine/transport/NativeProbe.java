package dev.peregrine.transport;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * Asks, without risk, whether a native Linux transport can run here: on another OS, or when its Netty
 * jar is missing (a {@code LinkageError} when the probe first names a Netty type), or when Netty says
 * no (its own reason), the answer is a one-line reason instead of an error. Shared by the epoll and
 * io_uring transports' availability checks, which call it once each (class initialisation).
 *
 * <p>Thread: any.
 */
public final class NativeProbe {
    private NativeProbe() {
    }

    /**
     * {@code null} when {@code transport} can run, else why not, in one line.
     *
     * @param artifact the Maven artifact that carries it, named when it cannot be loaded
     * @param netty    Netty's own reason (null: available); may throw {@code LinkageError}
     */
    public static String reason(String transport, String artifact, Supplier<String> netty) {
        String os = System.getProperty("os.name", "unknown");
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
            return transport + " needs Linux, this is " + os;
        }
        try {
            return firstLine(netty.get());
        } catch (LinkageError e) {
            // NoClassDefFoundError: the artifact is not on the class path.
            return artifact + " cannot be loaded (" + firstLine(String.valueOf(e.getMessage())) + ")";
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
