package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.testing.Transports;

import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * How the end-to-end suite starts a server: one of the test kit's {@link Transports#withLoops()} (a
 * transport and a loop count) with PlaintextApp's routes and {@link TestRoutes}. Every e2e class runs
 * once per value of {@link #all()}, so a transport added to the kit's list joins the suite.
 */
public final class ServerFactory {
    final String transport;
    final int threads;
    /** Name prefix of the transport's loop threads (the allocation test measures them). */
    final String loopThreadPrefix;

    private ServerFactory(Transports.Loops loops) {
        this.transport = loops.transport();
        this.threads = loops.loops();
        this.loopThreadPrefix = loops.loopThreadPrefix();
    }

    /** One factory per transport and loop count of the test kit's list. */
    public static Stream<ServerFactory> all() {
        return Transports.withLoops().map(ServerFactory::new);
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
