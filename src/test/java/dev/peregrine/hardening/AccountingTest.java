package dev.peregrine.hardening;

import dev.peregrine.Metrics;
import dev.peregrine.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Arrays;

import static dev.peregrine.hardening.Wire.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Traffic of every kind — valid, pipelined, rejected, reset, timed out, huge bodies — and then the
 * counters match what was sent and every pooled buffer is back once the connections are closed.
 */
class AccountingTest {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";
    private static final byte[] BIG = new byte[3 << 20];
    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void countersMatchTheTrafficAndEveryBufferComesBack() throws Exception {
        server = Server.builder().port(0).host("127.0.0.1").threads(2)
                .headerTimeout(Duration.ofMillis(300)).maxHeadSize(4096)
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/big", (req, res) -> res.body(BIG))
                .post("/echo", (req, res) -> res.body(req.body()))
                .start();
        int port = server.port();
        long requests = 0;
        int connections = 0;

        // Valid, one at a time on one connection.
        try (Wire w = new Wire(port)) {
            connections++;
            for (int i = 0; i < 20; i++) {
                w.send(GET);
                assertEquals(200, w.read().status);
                requests++;
            }
        }
        // Pipelined, split at awkward places.
        try (Wire w = new Wire(port)) {
            connections++;
            String batch = GET.repeat(50);
            w.send(batch.substring(0, 7)).send(batch.substring(7, 1001)).send(batch.substring(1001));
            for (int i = 0; i < 50; i++) {
                assertEquals(200, w.read().status);
                requests++;
            }
        }
        // Huge bodies both ways: a 3 MiB Content-Length echo, a chunked echo, a 3 MiB response.
        try (Wire w = new Wire(port)) {
            connections++;
            byte[] body = new byte[3 << 20];
            Arrays.fill(body, (byte) 'a');
            w.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n").send(body);
            Wire.Response r = w.read();
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
            try (Wire w = new Wire(port)) {
                connections++;
                w.send(bad[i]);
                assertEquals(statuses[i], w.read().status, bad[i]);
                assertTrue(w.closedByServer());
            }
        }
        try (Wire w = new Wire(port)) {
            connections++;
            w.send(GET + "BROKEN\r\n\r\n");
            assertEquals(200, w.read().status);
            requests++;
            assertEquals(400, w.read().status);
            assertTrue(w.closedByServer());
        }
        // Reset by the client: mid-head, mid-body, and while a large response is being written.
        for (String partial : new String[] {"GET /plain", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nabc"}) {
            Wire w = new Wire(port);
            connections++;
            w.send(partial);
            await("the partial request is held", () -> server.metrics().lentBuffers >= 1);
            w.reset();
            await("the reset connection is gone", () -> server.metrics().open == 0);
        }
        Wire big = new Wire(port, 4096);
        connections++;
        big.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
        await("output pending", () -> server.metrics().lentBuffers >= 1);
        requests++;
        big.reset();
        // Timed out: a head that never ends.
        try (Wire w = new Wire(port)) {
            connections++;
            w.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n");
            assertEquals(408, w.read().status);
            assertTrue(w.closedByServer());
        }

        final int expectedConnections = connections;
        await("every connection closed", () -> server.metrics().open == 0
                && server.metrics().accepted == expectedConnections);
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
