package dev.peregrine;

import java.util.Locale;

/**
 * Which event-loop implementation a server runs on ({@link Server.Builder#transport(Transport)}).
 * Without a choice in the builder, the system property {@code peregrine.transport} ({@code auto},
 * {@code nio} or {@code epoll}) decides, else {@link #AUTO}.
 */
public enum Transport {
    /** Linux epoll where Netty's native library loads, else {@link #NIO} with one INFO line. */
    AUTO,
    /** Java NIO selectors: portable, on every JVM and platform. */
    NIO,
    /** Linux epoll through {@code netty-transport-native-epoll}; starting fails where it cannot run. */
    EPOLL;

    /**
     * The transport named {@code name}: {@code auto}, {@code nio} or {@code epoll}, in any case.
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
            default:
                throw new IllegalArgumentException("unknown transport '" + name + "' (expected auto, epoll or nio)");
        }
    }

    /** The name {@link #parse} takes: {@code auto}, {@code nio} or {@code epoll}. */
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
