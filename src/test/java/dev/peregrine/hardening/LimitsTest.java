package dev.peregrine.hardening;

import dev.peregrine.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.peregrine.hardening.Wire.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** maxConnections, maxRequestsPerConnection and maxPipelinedRequests over real sockets. */
class LimitsTest {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";
    private Server server;

    private Server start(Server.Builder b) {
        server = b.port(0).host("127.0.0.1")
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
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
    void connectionLimitHoldsAndRecovers() throws Exception {
        start(Server.builder().threads(2).maxConnections(3));
        List<Wire> served = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Wire w = new Wire(server.port());
                served.add(w);
                w.send(GET);
                assertEquals(200, w.read().status);
            }
            // The fourth connects (the kernel's backlog takes it) but is not accepted while three are open.
            try (Wire fourth = new Wire(server.port())) {
                fourth.send(GET);
                await("a loop stops accepting", () -> server.metrics().acceptPauses >= 1);
                assertEquals(3, server.metrics().accepted);
                assertEquals(0, fourth.available());
                served.remove(0).close();
                // One closed: accepting resumes and the waiting connection is served.
                assertEquals(200, fourth.read().status);
                assertEquals(4, server.metrics().accepted);
                assertTrue(server.metrics().open <= 3);
            }
        } finally {
            for (Wire w : served) {
                w.close();
            }
        }
        await("all closed", () -> server.metrics().open == 0);
        // Capacity is whole again: three new connections are served.
        for (int i = 0; i < 3; i++) {
            try (Wire w = new Wire(server.port())) {
                w.send(GET);
                assertEquals(200, w.read().status);
            }
        }
    }

    @Test
    void lastRequestAllowedOnAConnectionSaysClose() throws Exception {
        start(Server.builder().threads(1).maxRequestsPerConnection(3));
        try (Wire w = new Wire(server.port())) {
            for (int i = 1; i <= 3; i++) {
                w.send(GET);
                Wire.Response r = w.read();
                assertEquals(200, r.status);
                if (i < 3) {
                    assertNull(r.header("Connection"));
                } else {
                    assertEquals("close", r.header("Connection"));
                }
            }
            assertTrue(w.closedByServer());
        }
        assertEquals(3, server.metrics().requests);
    }

    @Test
    void longPipelinedBatchIsAnsweredInFullAcrossPauses() throws Exception {
        start(Server.builder().threads(1).maxPipelinedRequests(4));
        try (Wire w = new Wire(server.port())) {
            w.send(GET.repeat(103));
            for (int i = 0; i < 103; i++) {
                Wire.Response r = w.read();
                assertEquals(200, r.status);
                assertEquals("Hello, World!", r.bodyText());
            }
        }
        await("closed", () -> server.metrics().open == 0);
        assertEquals(103, server.metrics().requests);
        assertEquals(0, server.metrics().lentBuffers);
    }

    @Test
    void pipelinedFloodFromAReaderThatNeverReadsIsBoundedByPendingOutput() throws Exception {
        start(Server.builder().threads(1).maxPendingOutput(16 * 1024).maxPipelinedRequests(16));
        try (Wire w = new Wire(server.port(), 4096)) {
            // ~100,000 requests, never reading: the server answers until the socket and maxPendingOutput
            // are full, then stops parsing; what it keeps is bounded, not 100,000 responses.
            byte[] batch = GET.repeat(1000).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        w.send(batch);
                    }
                } catch (java.io.IOException ignored) {
                    // the test closes the socket while this may still be blocked in write
                }
            });
            writer.setDaemon(true);
            writer.start();
            await("output pending and reading paused", () -> server.metrics().lentBytes > 0);
            long lent = server.metrics().lentBytes;
            assertTrue(lent <= 16 * 1024 + 64 * 1024 + 256 * 1024, "bounded: " + lent);
            w.reset();
            writer.join(30_000);
        }
        await("closed", () -> server.metrics().open == 0);
        assertEquals(0, server.metrics().lentBuffers);
        assertTrue(server.metrics().requests < 100_000);
    }
}
