package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;

import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * How the end-to-end suite starts a server: a transport and a loop count. Every e2e class runs once
 * per value of {@link #all()}; a new transport joins the suite by adding one value there.
 */
public final class ServerFactory {
    final String transport;
    final int threads;
    /** Name prefix of the transport's loop threads (the allocation test measures them). */
    final String loopThreadPrefix;

    ServerFactory(String transport, int threads, String loopThreadPrefix) {
        this.transport = transport;
        this.threads = threads;
        this.loopThreadPrefix = loopThreadPrefix;
    }

    /**
     * Every server the suite runs against: NIO, and epoll wherever Netty ships its native library
     * (Linux on x86-64 and aarch64) — there it must run, so a broken epoll fails the suite instead of
     * leaving it out.
     */
    public static Stream<ServerFactory> all() {
        Stream<ServerFactory> nio = Stream.of(new ServerFactory("nio", 1, "peregrine-nio-"), new ServerFactory("nio", 2, "peregrine-nio-"));
        if (!epollShipped()) {
            return nio;
        }
        return Stream.concat(nio, Stream.of(new ServerFactory("epoll", 1, "peregrine-epoll-"), new ServerFactory("epoll", 2, "peregrine-epoll-")));
    }

    /** Whether netty-transport-native-epoll has a native library for this platform. */
    static boolean epollShipped() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        return os.startsWith("linux") && (arch.equals("amd64") || arch.equals("aarch64"));
    }

    /** The app under test with the default limits. */
    Server start() {
        return start(b -> b);
    }

    /**
     * PlaintextApp's routes ({@code /plaintext}, {@code /json}, {@code /echo}) plus {@link TestRoutes}, on
     * 127.0.0.1 and a free port, after {@code settings} had their say.
     */
    Server start(UnaryOperator<Server.Builder> settings) {
        Server.Builder b = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(threads)
                .shutdownGrace(Duration.ofSeconds(2));
        return settings.apply(TestRoutes.add(PlaintextApp.routes(b))).start();
    }

    @Override
    public String toString() {
        return transport + " x" + threads;
    }
}
