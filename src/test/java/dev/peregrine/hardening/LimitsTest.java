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

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** maxConnections, maxRequestsPerConnection and maxPipelinedRequests over real sockets. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class LimitsTest {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";

    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;

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
        start(Server.builder().transport(transport).threads(2).maxConnections(3));
        List<RawClient> served = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                RawClient w = new RawClient(server.port());
                served.add(w);
                w.send(GET);
                assertEquals(200, w.read().status);
            }
            // The fourth connects (the kernel's backlog takes it) but is not accepted while three are open.
            try (RawClient fourth = new RawClient(server.port())) {
                fourth.send(GET);
                Await.until("a loop stops accepting", () -> server.metrics().acceptPauses >= 1);
                assertEquals(3, server.metrics().accepted);
                assertEquals(0, fourth.available());
                served.remove(0).close();
                // One closed: accepting resumes and the waiting connection is served.
                assertEquals(200, fourth.read().status);
                assertEquals(4, server.metrics().accepted);
                assertTrue(server.metrics().open <= 3);
            }
        } finally {
            for (RawClient w : served) {
                w.close();
            }
        }
        Await.until("all closed", () -> server.metrics().open == 0);
        // Capacity is whole again: three new connections are served.
        for (int i = 0; i < 3; i++) {
            try (RawClient w = new RawClient(server.port())) {
                w.send(GET);
                assertEquals(200, w.read().status);
            }
        }
    }

    @Test
    void lastRequestAllowedOnAConnectionSaysClose() throws Exception {
        start(Server.builder().transport(transport).threads(1).maxRequestsPerConnection(3));
        try (RawClient w = new RawClient(server.port())) {
            for (int i = 1; i <= 3; i++) {
                w.send(GET);
                RawResponse r = w.read();
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
        start(Server.builder().transport(transport).threads(1).maxPipelinedRequests(4));
        try (RawClient w = new RawClient(server.port())) {
            w.send(GET.repeat(103));
            for (int i = 0; i < 103; i++) {
                RawResponse r = w.read();
                assertEquals(200, r.status);
                assertEquals("Hello, World!", r.text());
            }
        }
        Await.until("closed", () -> server.metrics().open == 0);
        assertEquals(103, server.metrics().requests);
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
    }

    @Test
    void pipelinedFloodFromAReaderThatStopsReadingPausesTheServerAndLosesNothing() throws Exception {
        start(Server.builder().transport(transport).threads(1).maxPendingOutput(16 * 1024).maxPipelinedRequests(16));
        int batches = 100;
        int perBatch = 1000;
        try (RawClient w = new RawClient(server.port(), 4096)) {
            // 100,000 pipelined requests from a client that reads nothing yet: the server answers until
            // the socket and maxPendingOutput are full, then stops reading (the pause is counted), so
            // what it keeps is bounded and the client's own writes block.
            byte[] batch = GET.repeat(perBatch).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < batches; i++) {
                        w.send(batch);
                    }
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.setDaemon(true);
            writer.start();
            Await.until("reading paused", () -> server.metrics().readPauses >= 1);
            Metrics paused = server.metrics();
            assertTrue(paused.lentBytes <= 16 * 1024 + 64 * 1024 + 256 * 1024, "bounded: " + paused);
            assertTrue(paused.requests < (long) batches * perBatch, "stopped parsing: " + paused);

            // Now the client reads: the pause lifts as the output drains, and every request is answered.
            RawResponse first = w.read();
            assertEquals(200, first.status);
            int length = first.head.length() + first.body.length;
            int rest = batches * perBatch - 1;
            int chunk = 1000;
            for (int done = 0; done < rest; done += chunk) {
                int n = Math.min(chunk, rest - done);
                byte[] answers = w.readExactly(n * length);
                for (int i = 0; i < n; i++) {
                    assertEquals('H', answers[i * length], "response " + (done + i + 2) + " starts where expected");
                }
            }
            writer.join(30_000);
            assertFalse(writer.isAlive());
        }
        Await.until("closed", () -> server.metrics().open == 0);
        assertEquals((long) batches * perBatch, server.metrics().requests);
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
    }
}
