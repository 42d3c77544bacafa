package dev.peregrine.hardening;

import dev.peregrine.Metrics;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Graceful shutdown: in-flight requests finish, idle connections close, buffers return, the port is free. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class ShutdownTest {
    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;

    // One loop: "the idle connection was closed" then proves shutdown has reached the busy one too.
    // With two loops the busy connection may sit on a loop that has not yet taken its stop task.
    private Server start(int port, Duration grace) {
        return Server.builder().transport(transport).port(port).host("127.0.0.1").threads(1).shutdownGrace(grace)
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .post("/echo", (req, res) -> res.body(req.body()))
                .start();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void inFlightRequestCompletesIdleClosesAndThePortCanBeBoundAgain() throws Exception {
        int port = freePort();
        Server server = start(port, Duration.ofSeconds(30));
        CompletableFuture<Void> closing;
        try (RawClient idle = new RawClient(port); RawClient busy = new RawClient(port)) {
            idle.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(200, idle.read().status);
            busy.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello");
            Await.until("the partial request arrived", () -> server.metrics().lentBuffers == 1);

            closing = CompletableFuture.runAsync(server::close);
            // The idle connection is closed at once: that is how we know shutdown has begun.
            assertTrue(idle.closedByServer());
            assertFalse(closing.isDone(), "close() waits for the request in flight");

            busy.send("world");
            RawResponse r = busy.read();
            assertEquals(200, r.status);
            assertEquals("helloworld", r.text());
            assertEquals("close", r.header("Connection"));
            assertTrue(busy.closedByServer());
        }
        closing.get(30, TimeUnit.SECONDS);
        Metrics m = server.metrics();
        assertEquals(0, m.lentBuffers);
        assertEquals(0, m.open);
        assertEquals(2, m.requests);

        // The same fixed port, at once.
        Server again = start(port, Duration.ofSeconds(1));
        try (RawClient w = new RawClient(port)) {
            w.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(200, w.read().status);
        } finally {
            again.close();
        }
    }

    @Test
    void requestThatNeverFinishesIsCutAtTheGraceBound() throws Exception {
        Server server = start(0, Duration.ofMillis(300));
        try (RawClient busy = new RawClient(server.port())) {
            busy.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello");
            Await.until("the partial request arrived", () -> server.metrics().lentBuffers == 1);
            server.close();
            assertTrue(busy.closedByServer());
        }
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
        assertEquals(0, server.metrics().open);
    }

    @Test
    void httpAndHttpsListenersStopTogetherUnderOneGrace() throws Exception {
        Server server = Server.builder().transport(transport).port(0).host("127.0.0.1").threads(1).shutdownGrace(Duration.ofSeconds(60))
                .https(0, dev.peregrine.tls.TlsConfig.selfSigned())
                .post("/echo", (req, res) -> res.body(req.body()))
                .start();
        CompletableFuture<Void> closing;
        try (RawClient busy = new RawClient(server.port())) {
            busy.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello");
            Await.until("the partial request arrived", () -> server.metrics().lentBuffers == 1);
            closing = CompletableFuture.runAsync(server::close);
            // While the plain listener still waits for its request in flight, the HTTPS listener must
            // already be stopping: a server that stopped its listeners in turn would keep it open for
            // the whole first grace (60 s here, far past this wait).
            Await.until("the HTTPS port stopped accepting", () -> RawClient.refuses(server.httpsPort()));
            assertFalse(closing.isDone());
            // The plain loop closes its listener and marks its connections in one task: once its port
            // refuses too, the request under way is marked as the last.
            Await.until("the HTTP port stopped accepting", () -> RawClient.refuses(server.port()));
            busy.send("world");
            RawResponse r = busy.read();
            assertEquals("helloworld", r.text());
            assertEquals("close", r.header("Connection"));
        }
        closing.get(30, TimeUnit.SECONDS);
        assertEquals(0, server.metrics().open);
    }
}
