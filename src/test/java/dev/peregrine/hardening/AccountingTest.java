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
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Traffic of every kind — valid, pipelined, rejected, reset, timed out, huge bodies — and then the
 * counters match what was sent and every pooled buffer is back once the connections are closed.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class AccountingTest {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";
    private static final byte[] BIG = new byte[3 << 20];

    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;

    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void countersMatchTheTrafficAndEveryBufferComesBack() throws Exception {
        server = Server.builder().transport(transport).port(0).host("127.0.0.1").threads(2)
                .headerTimeout(Duration.ofMillis(300)).maxHeadSize(4096)
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/big", (req, res) -> res.body(BIG))
                .post("/echo", (req, res) -> res.body(req.body()))
                .start();
        int port = server.port();
        long requests = 0;
        int connections = 0;

        // Valid, one at a time on one connection.
        try (RawClient w = new RawClient(port)) {
            connections++;
            for (int i = 0; i < 20; i++) {
                w.send(GET);
                assertEquals(200, w.read().status);
                requests++;
            }
        }
        // Pipelined, split at awkward places.
        try (RawClient w = new RawClient(port)) {
            connections++;
            String batch = GET.repeat(50);
            w.send(batch.substring(0, 7)).send(batch.substring(7, 1001)).send(batch.substring(1001));
            for (int i = 0; i < 50; i++) {
                assertEquals(200, w.read().status);
                requests++;
            }
        }
        // Huge bodies both ways: a 3 MiB Content-Length echo, a chunked echo, a 3 MiB response.
        try (RawClient w = new RawClient(port)) {
            connections++;
            byte[] body = new byte[3 << 20];
            Arrays.fill(body, (byte) 'a');
            w.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n").send(body);
            RawResponse r = w.read();
            assertEquals(200, r.status);
            assertArrayEquals(body, r.body);
            requests++;
            StringBuilder chunked = new StringBuilder("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
            for (int i = 0; i < 100; i++) {
                chunked.append("400\r\n").append("b".repeat(1024)).append("\r\n");
            }
            w.send(chunked.append("0\r\n\r\n").toString());
            r = w.read();
            assertEquals(102_400, r.body.length);
            requests++;
            w.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(BIG.length, w.read().body.length);
            requests++;
        }
        // Rejected: 400, 431, 413, 505, and an error after a good request in the same batch.
        String[] bad = {
            "GET /plaintext HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n",
            "GET /plaintext HTTP/1.1\r\nHost: x\r\nX-Long: " + "z".repeat(5000) + "\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999\r\n\r\n",
            "GET /plaintext HTTP/2.0\r\nHost: x\r\n\r\n",
        };
        int[] statuses = {400, 431, 413, 505};
        for (int i = 0; i < bad.length; i++) {
            try (RawClient w = new RawClient(port)) {
                connections++;
                w.send(bad[i]);
                assertEquals(statuses[i], w.read().status, bad[i]);
                assertTrue(w.closedByServer());
            }
        }
        try (RawClient w = new RawClient(port)) {
            connections++;
            w.send(GET + "BROKEN\r\n\r\n");
            assertEquals(200, w.read().status);
            requests++;
            assertEquals(400, w.read().status);
            assertTrue(w.closedByServer());
        }
        // Reset by the client: mid-head, mid-body, and while a large response is being written.
        for (String partial : new String[] {"GET /plain", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nabc"}) {
            RawClient w = new RawClient(port);
            connections++;
            w.send(partial);
            Await.until("the partial request is held", () -> server.metrics().lentBuffers >= 1);
            w.reset();
            Await.until("the reset connection is gone", () -> server.metrics().open == 0);
        }
        RawClient big = new RawClient(port, 4096);
        connections++;
        big.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
        Await.until("output pending", () -> server.metrics().lentBuffers >= 1);
        requests++;
        big.reset();
        // Timed out: a head that never ends.
        try (RawClient w = new RawClient(port)) {
            connections++;
            w.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n");
            assertEquals(408, w.read().status);
            assertTrue(w.closedByServer());
        }

        final int expectedConnections = connections;
        Await.until("every connection closed", () -> server.metrics().open == 0
                && server.metrics().accepted == expectedConnections);
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics()); // io_uring: send buffers until their completions
        Metrics m = server.metrics();
        assertEquals(expectedConnections, m.closed, m.toString());
        assertEquals(requests, m.requests, m.toString());
        assertEquals(1, m.rejected(431), m.toString());
        assertEquals(1, m.rejected(413), m.toString());
        assertEquals(1, m.rejected(505), m.toString());
        assertEquals(2, m.rejected(400), m.toString());
        assertEquals(1, m.rejected(408), m.toString());
        assertEquals(6, m.rejected, m.toString());
        assertEquals(1, m.headerTimeouts, m.toString());
        assertTrue(m.bytesIn >= 3L << 20, m.toString());
        assertTrue(m.bytesOut >= 6L << 20, m.toString());
        assertEquals(0, m.lentBuffers, m.toString());
        assertEquals(0, m.lentBytes, m.toString());
    }
}
