package dev.peregrine.transport;

import java.util.Locale;
import java.util.function.Supplier;

/**
 * Asks, without risk and once, whether a native Linux transport can run here: on another OS, or when
 * its Netty jar is missing (a {@code LinkageError} when the probe first names a Netty type), or when
 * Netty says no (its own reason), the answer is a one-line reason instead of an error. The epoll and
 * io_uring transports' availability classes each hold one; the first question asks Netty, later ones
 * get the same answer.
 *
 * <p>Thread: any.
 */
public final class NativeProbe {
    private final String transport;
    private final String artifact;
    private final Supplier<String> netty;
    private volatile boolean asked;
    private volatile String reason;

    /**
     * @param transport the transport's name, for the reason
     * @param artifact  the Maven artifact that carries it, named when it cannot be loaded
     * @param netty     Netty's own reason (null: available); may throw {@code LinkageError}. A lambda,
     *                  not a method reference, so that the class naming Netty resolves inside the guard
     */
    public NativeProbe(String transport, String artifact, Supplier<String> netty) {
        this.transport = transport;
        this.artifact = artifact;
        this.netty = netty;
    }

    /** {@code null} when the transport can run, else why not, in one line. Asked once. */
    public String reason() {
        if (!asked) {
            synchronized (this) {
                if (!asked) {
                    reason = reason(transport, artifact, netty);
                    asked = true;
                }
            }
        }
        return reason;
    }

    /** Whether the transport can run here. */
    public boolean available() {
        return reason() == null;
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
