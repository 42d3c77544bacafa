package dev.peregrine.testing;

import java.util.Locale;
import java.util.stream.Stream;

/**
 * The one list of transports a test runs on. A test that must pass on every transport takes its
 * transport as a parameter from here, and a new transport joins every such test by one line in
 * {@link #names()}:
 *
 * <pre>{@code
 * @ParameterizedTest
 * @MethodSource("dev.peregrine.testing.Transports#names")          // "nio", "epoll", "io_uring"
 * void servesOnEveryTransport(String transport) { ... .transport(transport) ... }
 *
 * @ParameterizedClass(name = "{0}")
 * @MethodSource("dev.peregrine.testing.Transports#withLoops")      // nio x1, nio x2, epoll x1, ...
 * class SomeEndToEndTest { SomeEndToEndTest(Transports.Loops loops) { ... } }
 * }</pre>
 *
 * Epoll is in the list wherever Netty ships its native library (Linux on x86-64 and aarch64): there it
 * must run, so a broken epoll fails the suite instead of leaving it out. Thread-safe.
 */
public final class Transports {
    /** A transport run with a number of event loops: one loop, and two (connections spread over loops). */
    public record Loops(String transport, int loops) {
        /** Name prefix of the transport's loop threads (allocation tests measure them). */
        public String loopThreadPrefix() {
            return "peregrine-" + transport + "-";
        }

        @Override
        public String toString() {
            return transport + " x" + loops;
        }
    }

    private Transports() {
    }

    /**
     * Every transport by its builder name: {@code nio}, and {@code epoll} and {@code io_uring} where
     * {@link #epollShipped()} (Netty ships both native libraries for the same platforms; io_uring also
     * needs a kernel that allows it, so it is left out, with a line on standard error, where
     * {@code kernel.io_uring_disabled} forbids it: a test asked for it would silently run on epoll).
     */
    public static Stream<String> names() {
        if (!epollShipped()) {
            return Stream.of("nio");
        }
        return ioUringAllowed() ? Stream.of("nio", "epoll", "io_uring") : Stream.of("nio", "epoll");
    }

    /**
     * Every transport of {@link #names()} paired with each of {@code values}, transport first, as the
     * arguments of a test with a second parameter ({@code (String transport, String kind)}).
     */
    public static Stream<Object[]> namesWith(String... values) {
        return names().flatMap(t -> Stream.of(values).map(v -> new Object[]{t, v}));
    }

    /** Every transport of {@link #names()} with one loop and with two. */
    public static Stream<Loops> withLoops() {
        return names().flatMap(t -> Stream.of(new Loops(t, 1), new Loops(t, 2)));
    }

    /**
     * Whether the kernel lets this process use io_uring ({@code /proc/sys/kernel/io_uring_disabled} is
     * absent or 0; Linux 6.6+ has the switch). Asked of the kernel, not of Netty: a Netty that fails to
     * load io_uring where the kernel allows it must fail the suite, not leave io_uring out.
     */
    public static boolean ioUringAllowed() {
        java.nio.file.Path knob = java.nio.file.Path.of("/proc/sys/kernel/io_uring_disabled");
        try {
            boolean allowed = !java.nio.file.Files.exists(knob) || java.nio.file.Files.readString(knob).trim().equals("0");
            if (!allowed) {
                System.err.println("Transports: kernel.io_uring_disabled is set; io_uring left out of the matrix");
            }
            return allowed;
        } catch (java.io.IOException e) {
            return true;
        }
    }

    /** Whether netty-transport-native-epoll has a native library for this platform. */
    public static boolean epollShipped() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("aarch64"));
    }
}
