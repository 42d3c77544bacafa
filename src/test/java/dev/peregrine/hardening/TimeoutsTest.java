package dev.peregrine.hardening;

import dev.peregrine.Metrics;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every timeout of {@code ServerConfig} cuts the connection it is meant for, with short settings.
 * The tests assert what the client sees (408, close) and the counters, never how long it took.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class TimeoutsTest {
    private static final byte[] MEBIBYTE = new byte[1 << 20];
    /** Header lines a slowloris test sends at most (20 ms apart): far more than a 300 ms clock allows. */
    private static final int SLOW_LINES = 1000;

    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;

    private Server server;

    private Server start(Server.Builder b) {
        server = b.port(0).host("127.0.0.1").threads(1)
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/big", (req, res) -> res.body(MEBIBYTE))
                .post("/echo", (req, res) -> res.body(req.body()))
                .start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void slowlorisHeadIsCutWith408WhileBytesKeepArriving() throws Exception {
        // Limits high enough that only the header clock can end the head: 1,000 lines, 64 KiB.
        start(Server.builder().transport(transport).headerTimeout(Duration.ofMillis(300)).idleTimeout(Duration.ofMinutes(5))
                .maxHeaderCount(1000).maxHeadSize(64 * 1024));
        try (RawClient w = new RawClient(server.port())) {
            w.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n");
            // A header line every 20 ms, for up to 20 s: each read is progress, but the head as a whole
            // is late. The 408 must come while lines are still arriving: a header clock that restarted
            // with every byte would never fire here, and the test would run out of lines.
            int sent = 0;
            boolean answeredWhileSending = false;
            while (sent < SLOW_LINES) {
                if (w.available() > 0) {
                    answeredWhileSending = true;
                    break;
                }
                try {
                    w.send("X-Slow-" + sent++ + ": y\r\n");
                } catch (java.io.IOException closed) {
                    answeredWhileSending = true; // the server answered and closed between two checks
                    break;
                }
                LockSupport.parkNanos(20_000_000L);
            }
            assertTrue(answeredWhileSending, "no 408 after " + sent + " header lines sent 20 ms apart");
            RawResponse r = w.read();
            assertEquals(408, r.status);
            assertEquals("close", r.header("Connection"));
            assertTrue(w.closedByServer());
        }
        Await.until("the connection closed", () -> server.metrics().open == 0);
        assertEquals(1, server.metrics().headerTimeouts);
        assertEquals(1, server.metrics().rejected(408));
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
    }

    @Test
    void bodyThatStopsArrivingIsCutWith408() throws Exception {
        start(Server.builder().transport(transport).bodyTimeout(Duration.ofMillis(300)).idleTimeout(Duration.ofMinutes(5)));
        try (RawClient w = new RawClient(server.port())) {
            w.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
            RawResponse r = w.read();
            assertEquals(408, r.status);
            assertTrue(w.closedByServer());
        }
        Await.until("the connection closed", () -> server.metrics().open == 0);
        assertEquals(1, server.metrics().bodyTimeouts);
        assertEquals(0, server.metrics().requests);
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
    }

    @Test
    void chunkedBodyThatStopsArrivingIsCutWith408() throws Exception {
        start(Server.builder().transport(transport).bodyTimeout(Duration.ofMillis(300)).idleTimeout(Duration.ofMinutes(5)));
        try (RawClient w = new RawClient(server.port())) {
            w.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel");
            assertEquals(408, w.read().status);
            assertTrue(w.closedByServer());
        }
        Await.until("the connection closed", () -> server.metrics().open == 0);
        assertEquals(1, server.metrics().bodyTimeouts);
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
    }

    @Test
    void idleKeepAliveConnectionIsClosedSilently() throws Exception {
        start(Server.builder().transport(transport).idleTimeout(Duration.ofMillis(300)));
        try (RawClient w = new RawClient(server.port())) {
            w.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(200, w.read().status);
            assertEquals(-1, w.input().read(), "no bytes, just the close");
        }
        Await.until("the connection closed", () -> server.metrics().open == 0);
        assertEquals(1, server.metrics().idleTimeouts);
        assertEquals(0, server.metrics().rejected);
    }

    @Test
    void freshConnectionThatSendsNothingIsClosedByTheIdleTimeout() throws Exception {
        start(Server.builder().transport(transport).idleTimeout(Duration.ofMillis(300)));
        try (RawClient w = new RawClient(server.port())) {
            assertEquals(-1, w.input().read());
        }
        Await.until("the connection closed", () -> server.metrics().open == 0);
        assertEquals(1, server.metrics().idleTimeouts);
    }

    @Test
    void requestsKeepAnIdleConnectionAlive() throws Exception {
        // Each request restarts the idle clock: 30 requests 100 ms apart outlast a 1 s idle timeout
        // three times over, and all are served on the one connection.
        start(Server.builder().transport(transport).idleTimeout(Duration.ofSeconds(1)));
        try (RawClient w = new RawClient(server.port())) {
            for (int i = 0; i < 30; i++) {
                w.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n");
                assertEquals(200, w.read().status, "request " + i);
                LockSupport.parkNanos(100_000_000L);
            }
        }
        assertEquals(0, server.metrics().idleTimeouts);
        assertEquals(1, server.metrics().accepted);
    }

    @Test
    void stalledReaderIsClosedAndReadingPausedMeanwhile() throws Exception {
        start(Server.builder().transport(transport).writeTimeout(Duration.ofMillis(500)).maxPendingOutput(64 * 1024)
                .idleTimeout(Duration.ofMinutes(5)));
        try (RawClient w = new RawClient(server.port(), 4096)) {
            // 50 requests for 1 MiB each, and never a byte read: the kernel buffers fill, output piles
            // up to maxPendingOutput, reading stops, and the write timeout closes the connection.
            w.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".repeat(50));
            Await.until("the write timeout", () -> server.metrics().writeTimeouts == 1);
            assertTrue(w.discardUntilClosed());
        }
        Await.until("the connection closed", () -> server.metrics().open == 0);
        Metrics m = server.metrics();
        assertTrue(m.requests < 50, "the server stopped parsing while output was pending: " + m);
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics()); // io_uring: a closed connection's last bytes linger
    }

    @Test
    void peerThatNeverClosesAfterOurFinIsClosedByTheDrainTimeout() throws Exception {
        start(Server.builder().transport(transport).drainTimeout(Duration.ofMillis(300)).idleTimeout(Duration.ofMinutes(5)));
        try (RawClient w = new RawClient(server.port())) {
            w.send("GET /plaintext HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            RawResponse r = w.read();
            assertEquals(200, r.status);
            assertEquals(-1, w.input().read(), "FIN after the response");
            // We keep our side open: the server drains, then gives up.
            Await.until("the drain timeout", () -> server.metrics().drainTimeouts == 1);
        }
        Await.until("the connection closed", () -> server.metrics().open == 0);
    }
}
