package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code maxConnectionAge} (gRPC A9 for HTTP/1.1) over real sockets: past its age a connection's next
 * response says {@code Connection: close} and the connection ends; an idle one is closed once the
 * grace is over; off, nothing changes. No clock is asserted: ages are tiny and each test waits for the
 * observable event (the close header, the EOF) with a generous bound.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class MaxConnectionAgeTest extends ServerTestBase {
    private static final String REQUEST = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";

    MaxConnectionAgeTest(ServerFactory factory) {
        super(factory);
    }

    private Server restart(UnaryOperator<Server.Builder> settings) {
        server.close();
        server = factory.start(settings);
        return server;
    }

    @Test
    void anAgedConnectionsNextResponseClosesIt() throws IOException {
        restart(b -> b.maxConnectionAge(Duration.ofMillis(1)).maxConnectionAgeGrace(Duration.ofSeconds(60)));
        try (Socket s = connect()) {
            InputStream in = s.getInputStream();
            RawResponse r;
            int requests = 0;
            do { // the first response already may be the closing one; the age passes within a few at most
                s.getOutputStream().write(RawClient.bytes(REQUEST));
                r = RawResponse.read(in);
                assertEquals(200, r.status);
                requests++;
                assertTrue(requests < 10_000, "never closed");
            } while (!"close".equalsIgnoreCase(r.header("Connection")));
            assertEquals(-1, in.read(), "the connection ends after the closing response");
        }
        Await.until(() -> server.metrics().agedConnections == 1, server.metrics()::toString);
    }

    @Test
    void anIdleConnectionIsClosedOnceAgeAndGraceAreOver() throws IOException {
        restart(b -> b.maxConnectionAge(Duration.ofMillis(300)).maxConnectionAgeGrace(Duration.ZERO).maxConnectionAgeJitter(0));
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(REQUEST));
            InputStream in = s.getInputStream();
            RawResponse r = RawResponse.read(in);
            assertEquals(200, r.status);
            // then idle: the server ends the connection (idleTimeout is 60 s, so this is the age)
            if (!"close".equalsIgnoreCase(r.header("Connection"))) {
                assertEquals(-1, in.read());
            }
        }
        Await.until(() -> server.metrics().agedConnections == 1, server.metrics()::toString);
        assertEquals(0, server.metrics().idleTimeouts);
    }

    @Test
    void aFreshIdleConnectionIsRetiredToo() throws IOException {
        restart(b -> b.maxConnectionAge(Duration.ofMillis(1)).maxConnectionAgeGrace(Duration.ofMillis(1)));
        try (Socket s = connect()) {
            assertEquals(-1, s.getInputStream().read());
        }
        Await.until(() -> server.metrics().agedConnections == 1, server.metrics()::toString);
    }

    @Test
    void theJdkClientSeesTheCloseAndReconnects() throws Exception {
        restart(b -> b.maxConnectionAge(Duration.ofMillis(1)).maxConnectionAgeGrace(Duration.ofSeconds(60)));
        URI uri = URI.create(url("/plaintext"));
        HttpResponse<String> r;
        int requests = 0;
        do {
            r = CLIENT.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("Hello, World!", r.body());
            assertTrue(++requests < 10_000, "never closed");
        } while (!r.headers().firstValue("Connection").orElse("").equalsIgnoreCase("close"));
        long accepted = server.metrics().accepted;
        r = CLIENT.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(server.metrics().accepted > accepted, "a new connection after the closing response");
        assertTrue(server.metrics().agedConnections >= 1);
    }

    @Test
    void offByDefault() throws IOException {
        try (Socket s = connect()) {
            for (int i = 0; i < 200; i++) {
                s.getOutputStream().write(RawClient.bytes(REQUEST));
                RawResponse r = RawResponse.read(s.getInputStream());
                assertFalse("close".equalsIgnoreCase(r.header("Connection")));
            }
        }
        assertEquals(0, server.metrics().agedConnections);
    }
}
