package dev.peregrine.transport.epoll;

import dev.peregrine.Handler;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The epoll transport end to end over real sockets, each scenario run on NIO as well so that the two
 * transports are held to the same answers. The scenarios aim at what is particular to edge-triggered
 * epoll: reading until EAGAIN (pipelining, large requests), partial writes and {@code EPOLLOUT} (large
 * responses), pausing and resuming input under backpressure without losing readiness, half-close, and
 * several loops with and without {@code SO_REUSEPORT}.
 */
class EpollTransportTest {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] JSON = "{\"message\":\"Hello, World!\"}".getBytes(StandardCharsets.US_ASCII);
    /** Larger than loopback's socket buffers together (tcp_wmem + tcp_rmem maxima): writes must go partial. */
    private static final byte[] BIG = pattern(16 << 20, 1);
    private static final byte[] CHUNK = pattern(16 << 10, 2);

    private static final Handler ECHO = (req, res) -> {
        CharSequence type = req.headers().view("Content-Type");
        if (type != null) {
            res.contentType(type.toString());
        }
        res.body(req.body());
    };

    private Server server;

    private Server start(String transport, int threads, boolean reusePort) {
        Server s = start(Server.builder().threads(threads).reusePort(reusePort).transport(transport));
        assertEquals(transport, s.transport().id());
        return s;
    }

    private Server start(Server.Builder builder) {
        server = builder.host("127.0.0.1").port(0)
                .get("/plaintext", (req, res) -> res.contentType("text/plain").body(HELLO))
                .get("/json", (req, res) -> res.contentType("application/json").body(JSON))
                .post("/echo", ECHO)
                .get("/big", (req, res) -> res.contentType("application/octet-stream").body(BIG))
                .get("/chunk", (req, res) -> res.contentType("application/octet-stream").body(CHUNK))
                .get("/peer", (req, res) -> res.text(req.remoteAddress().getAddress().getHostAddress() + " " + req.remoteAddress().getPort()))
                .start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static byte[] pattern(int size, int seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n";
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void plaintextJsonAndEchoOverTheJdkClient(String transport) throws Exception {
        start(transport, 1, true);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String base = "http://127.0.0.1:" + server.port();
        HttpResponse<String> plain = client.send(HttpRequest.newBuilder(URI.create(base + "/plaintext")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, plain.statusCode());
        assertEquals("Hello, World!", plain.body());
        assertEquals("text/plain", plain.headers().firstValue("Content-Type").orElseThrow());
        assertTrue(plain.headers().firstValue("Date").isPresent());

        HttpResponse<String> json = client.send(HttpRequest.newBuilder(URI.create(base + "/json")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("{\"message\":\"Hello, World!\"}", json.body());
        assertEquals("application/json", json.headers().firstValue("Content-Type").orElseThrow());

        HttpResponse<String> echo = client.send(HttpRequest.newBuilder(URI.create(base + "/echo"))
                .header("Content-Type", "text/x-test").POST(HttpRequest.BodyPublishers.ofString("ping pong")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("ping pong", echo.body());
        assertEquals("text/x-test", echo.headers().firstValue("Content-Type").orElseThrow());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void rawKeepAliveAnswersExactBytes(String transport) throws Exception {
        start(transport, 1, true);
        try (RawClient c = new RawClient(server.port())) {
            for (int i = 0; i < 3; i++) {
                c.send(get("/plaintext"));
                RawResponse r = c.read();
                assertTrue(r.head.startsWith("HTTP/1.1 200 OK\r\n"), r.head);
                assertTrue(r.head.contains("\r\nContent-Length: 13\r\n"), r.head);
                assertEquals("Hello, World!", r.text());
            }
            c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello");
            assertEquals("hello", c.read().text());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void pipelines256RequestsSentInOneWrite(String transport) throws Exception {
        start(transport, 1, true);
        try (RawClient c = new RawClient(server.port())) {
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 256; i++) {
                batch.append(get(i % 2 == 0 ? "/plaintext" : "/json"));
            }
            c.send(batch.toString());
            for (int i = 0; i < 256; i++) {
                RawResponse r = c.read();
                assertEquals(200, r.status);
                assertArrayEquals(i % 2 == 0 ? HELLO : JSON, r.body, "response " + i);
            }
        }
        assertEquals(256, server.metrics().requests);
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void echoes4MiBInBothDirections(String transport) throws Exception {
        start(transport, 1, true);
        byte[] body = pattern(4 << 20, 3);
        try (RawClient c = new RawClient(server.port())) {
            c.send(("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            c.send(body);
            RawResponse r = c.read();
            assertEquals(200, r.status);
            assertArrayEquals(body, r.body);
            // The connection is still usable after a large exchange.
            c.send(get("/plaintext"));
            assertEquals("Hello, World!", c.read().text());
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpResponse<byte[]> viaJdk = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/echo"))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertArrayEquals(body, viaJdk.body());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void responsesLargerThanTheSocketBuffersArriveWhole(String transport) throws Exception {
        start(transport, 1, true);
        try (RawClient c = new RawClient(server.port())) {
            c.send(get("/big") + get("/plaintext") + get("/big"));
            assertArrayEquals(BIG, c.read().body);
            assertArrayEquals(HELLO, c.read().body);
            assertArrayEquals(BIG, c.read().body);
        }
        assertEquals(0, server.metrics().lentBuffers, "pending output returned to the pool");
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void backpressurePausesAndResumesAClientThatReadsLate(String transport) throws Exception {
        start(transport, 1, true);
        int requests = 3000; // 47 MiB of responses against 1 MiB of allowed pending output: reading must pause
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try (RawClient c = new RawClient(server.port())) {
            byte[] one = get("/chunk").getBytes(StandardCharsets.US_ASCII);
            Future<?> sent = writer.submit(() -> {
                // In pieces, so that requests keep arriving while the server is paused.
                for (int i = 0; i < requests; i += 100) {
                    byte[] batch = new byte[one.length * 100];
                    for (int k = 0; k < 100; k++) {
                        System.arraycopy(one, 0, batch, k * one.length, one.length);
                    }
                    c.send(batch);
                }
                return null;
            });
            // The client reads nothing until the server has stopped reading: the pause itself is
            // what this test is about, then that every response still arrives once it lifts.
            Await.until(() -> server.metrics().readPauses > 0, () -> "reading never paused: " + server.metrics());
            for (int i = 0; i < requests; i++) {
                RawResponse r = c.read();
                assertEquals(200, r.status, "response " + i);
                assertArrayEquals(CHUNK, r.body, "response " + i);
            }
            sent.get(30, TimeUnit.SECONDS);
        } finally {
            writer.shutdownNow();
        }
        assertEquals(requests, server.metrics().requests);
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void halfClosedClientGetsItsAnswerThenTheClose(String transport) throws Exception {
        start(transport, 1, true);
        try (RawClient c = new RawClient(server.port())) {
            c.send(get("/plaintext") + get("/json"));
            c.halfClose();
            assertArrayEquals(HELLO, c.read().body);
            assertArrayEquals(JSON, c.read().body);
            assertTrue(c.closedByServer());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void badRequestIsAnsweredAndClosedWhileOthersGoOn(String transport) throws Exception {
        start(transport, 1, true);
        try (RawClient good = new RawClient(server.port()); RawClient bad = new RawClient(server.port())) {
            good.send(get("/plaintext"));
            assertArrayEquals(HELLO, good.read().body);
            bad.send("GET /plaintext HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n");
            assertEquals(400, bad.read().status);
            assertTrue(bad.closedByServer());
            good.send(get("/json"));
            assertArrayEquals(JSON, good.read().body);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void handlersSeeThePeerAddress(String transport) throws Exception {
        start(transport, 1, true);
        try (RawClient c = new RawClient(server.port())) {
            c.send(get("/peer"));
            assertEquals("127.0.0.1 " + c.socket().getLocalPort(), c.read().text());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void acceptsABurstLargerThanOneAcceptBatch(String transport) throws Exception {
        start(transport, 1, true);
        List<RawClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 300; i++) { // queued in the backlog faster than one batch of 64 is accepted
                clients.add(new RawClient(server.port()));
            }
            for (RawClient c : clients) {
                c.send(get("/plaintext"));
            }
            for (RawClient c : clients) {
                assertArrayEquals(HELLO, c.read().body);
            }
        } finally {
            for (RawClient c : clients) {
                c.close();
            }
        }
        assertEquals(300, server.metrics().accepted);
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void twoLoopsServeManyConnectionsWithReusePort(String transport) throws Exception {
        manyConnections(start(transport, 2, true));
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void twoLoopsServeManyConnectionsWhenLoopZeroAcceptsForBoth(String transport) throws Exception {
        manyConnections(start(transport, 2, false));
    }

    private void manyConnections(Server s) throws Exception {
        int connections = 64;
        int perConnection = 20;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                results.add(pool.submit(() -> {
                    int ok = 0;
                    try (RawClient c = new RawClient(s.port())) {
                        for (int k = 0; k < perConnection; k++) {
                            c.send(get("/plaintext"));
                            if (Arrays.equals(HELLO, c.read().body)) {
                                ok++;
                            }
                        }
                    }
                    return ok;
                }));
            }
            int ok = 0;
            for (Future<Integer> f : results) {
                ok += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(connections * perConnection, ok);
        } finally {
            pool.shutdownNow();
        }
        assertEquals(connections, s.metrics().accepted);
        assertEquals(connections * perConnection, s.metrics().requests);
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void atMaxConnectionsAcceptingWaitsUntilOneCloses(String transport) throws Exception {
        start(Server.builder().threads(1).transport(transport).maxConnections(2));
        RawClient first = new RawClient(server.port());
        try (RawClient second = new RawClient(server.port()); RawClient third = new RawClient(server.port())) {
            first.send(get("/plaintext"));
            assertArrayEquals(HELLO, first.read().body);
            second.send(get("/plaintext"));
            assertArrayEquals(HELLO, second.read().body);
            third.send(get("/plaintext")); // connected in the kernel's backlog, not accepted yet
            first.close();
            assertArrayEquals(HELLO, third.read().body); // accepted once the first one's slot freed
            assertTrue(server.metrics().acceptPauses > 0);
        } finally {
            first.close();
        }
    }

    @Test
    void closeEndsIdleConnectionsAndFreesThePort() throws Exception {
        start("epoll", 2, true);
        int port = server.port();
        try (RawClient idle = new RawClient(port)) {
            idle.send(get("/plaintext"));
            assertArrayEquals(HELLO, idle.read().body);
            server.close();
            assertTrue(idle.closedByServer());
        }
        server = Server.builder().host("127.0.0.1").port(port).threads(1).transport("epoll")
                .get("/plaintext", (req, res) -> res.body(HELLO)).start();
        try (RawClient c = new RawClient(port)) {
            c.send(get("/plaintext"));
            assertArrayEquals(HELLO, c.read().body);
        }
    }

    @Test
    void bindingATakenPortFailsClearly() throws IOException {
        start("epoll", 1, true);
        Server.Builder second = Server.builder().host("127.0.0.1").port(server.port()).threads(1).transport("epoll");
        java.io.UncheckedIOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.UncheckedIOException.class, second::start);
        assertTrue(e.getCause() instanceof java.net.BindException, e.toString());
    }
}
