package dev.peregrine;

import java.util.Locale;

/**
 * Which event-loop implementation a server runs on ({@link Server.Builder#transport(Transport)}).
 * Without a choice in the builder, the system property {@code peregrine.transport} ({@code auto},
 * {@code nio}, {@code epoll} or {@code io_uring}) decides, else {@link #AUTO}.
 */
public enum Transport {
    /** Linux epoll where Netty's native library loads, else {@link #NIO} with one INFO line. */
    AUTO,
    /** Java NIO selectors: portable, on every JVM and platform. */
    NIO,
    /** Linux epoll through {@code netty-transport-native-epoll}; starting fails where it cannot run. */
    EPOLL,
    /**
     * Linux io_uring through {@code netty-transport-native-io_uring} (multishot accept, readiness as ring
     * completions). Where it cannot run (an old kernel, seccomp, {@code kernel.io_uring_disabled}), one
     * INFO line says why and the server starts as {@link #AUTO} would: epoll, else NIO.
     */
    IO_URING;

    /**
     * The transport named {@code name}: {@code auto}, {@code nio}, {@code epoll} or {@code io_uring}
     * ({@code iouring} too), in any case.
     *
     * @throws IllegalArgumentException for any other name, listing the choices
     */
    public static Transport parse(String name) {
        switch (name == null ? "" : name.trim().toLowerCase(Locale.ROOT)) {
            case "auto":
                return AUTO;
            case "nio":
                return NIO;
            case "epoll":
                return EPOLL;
            case "io_uring":
            case "iouring":
                return IO_URING;
            default:
                throw new IllegalArgumentException("unknown transport '" + name + "' (expected auto, epoll, io_uring or nio)");
        }
    }

    /** The name {@link #parse} takes: {@code auto}, {@code nio}, {@code epoll} or {@code io_uring}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** From {@code -Dperegrine.transport}, else {@link #AUTO}; a bad value fails naming the property. */
    static Transport fromSystemProperty() {
        String value = System.getProperty("peregrine.transport");
        if (value == null) {
            return AUTO;
        }
        try {
            return parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("system property peregrine.transport: " + e.getMessage(), e);
        }
    }
}
