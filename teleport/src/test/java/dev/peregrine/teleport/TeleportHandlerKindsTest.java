package dev.peregrine.teleport;

import dev.peregrine.BodyListener;
import dev.peregrine.Completion;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every handler kind over teleport, on every transport of the kit's list: blocking handlers (random
 * delays, matched by id), files, producers, a blocking handler's output stream, async responses larger
 * than the loop's write buffer, a streaming handler given the buffered body, responses past the
 * client's frame limit (500, the connection goes on), request ids.
 */
class TeleportHandlerKindsTest {
    /** Larger than the loops' 64 KiB write buffer (and than the 64 KiB frames the plain test peer takes). */
    private static final int BIG = 300 * 1024;
    private Server server;
    private TeleportClient client;

    @TempDir
    Path dir;

    private static String pattern(int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append((char) ('a' + (i * 7 + i / 26) % 26));
        }
        return b.toString();
    }

    private Server start(String transport) throws Exception {
        Path file = dir.resolve("big.txt");
        Files.writeString(file, pattern(BIG));
        Path small = dir.resolve("small.txt");
        Files.writeString(small, "a small file");
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0).requestIds(true)
                .get("/blocking", Handlers.blocking((req, res) -> {
                    Thread.sleep(ThreadLocalRandom.current().nextInt(20));
                    res.text("b=" + req.query().get("i"));
                }))
                .get("/blocking-stream", Handlers.blocking((req, res) -> {
                    try (OutputStream out = res.outputStream()) {
                        byte[] all = pattern(BIG).getBytes(StandardCharsets.US_ASCII);
                        for (int at = 0; at < all.length; at += 1000) {
                            out.write(all, at, Math.min(1000, all.length - at));
                        }
                    }
                }))
                .get("/blocking-file", Handlers.blocking((req, res) -> res.sendFile(file)))
                .get("/file", (req, res) -> res.sendFile(file))
                .get("/small-file", (req, res) -> res.sendFile(small))
                .get("/produce", (req, res) -> {
                    int[] left = {Integer.parseInt(req.query().get("n"))};
                    res.stream(dst -> {
                        while (left[0] > 0 && dst.hasRemaining()) {
                            dst.put((byte) ('0' + left[0]-- % 10));
                        }
                        return left[0] > 0;
                    });
                })
                .get("/failing-producer", (req, res) -> res.stream(dst -> {
                    throw new IllegalStateException("producer failed (expected by the test)");
                }))
                .get("/async-big", (req, res) -> {
                    Completion done = res.async();
                    new Thread(() -> {
                        done.response().text(pattern(BIG));
                        done.complete();
                    }).start();
                })
                .post("/streaming", Handlers.streaming((req, res) -> {
                    Completion done = res.async();
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    req.onBody(new BodyListener() {
                        @Override
                        public void onData(java.nio.ByteBuffer data) {
                            byte[] b = new byte[data.remaining()];
                            data.get(b);
                            got.writeBytes(b);
                        }

                        @Override
                        public void onEnd() {
                            done.response().text("streamed " + got.size());
                            done.complete();
                        }
                    });
                }))
                .get("/hello", (req, res) -> res.text("hello"))
                .get("/hints-blocking", Handlers.blocking((req, res) -> {
                    res.interim(103, "Link", "</a.css>; rel=preload");
                    res.text("after hints");
                }))
                .get("/hints-inline", (req, res) -> {
                    res.interim(103, "Link", "</a.css>; rel=preload");
                    res.text("after hints");
                })
                .start();
        return server;
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void blockingHandlersWithRandomDelaysAreMatchedById(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 1; i <= 300; i++) {
                all.writeBytes(TestPeer.request(i, TestPeer.get(i % 3 == 0 ? "/hello" : "/blocking?i=" + i)));
            }
            p.write(all.toByteArray());
            Set<Integer> seen = new HashSet<>();
            for (int i = 1; i <= 300; i++) {
                TestPeer.Got g = p.read();
                assertEquals(Frame.RESPONSE, g.type());
                assertEquals(g.id() % 3 == 0 ? "hello" : "b=" + g.id(), g.body(), "id " + g.id());
                assertTrue(g.text().contains("X-Request-Id: "), g.text());
                assertTrue(seen.add(g.id()), "answered once: " + g.id());
            }
        }
        client = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(dev.peregrine.Transport.parse(transport)).maxInFlight(5000).timeout(Duration.ofSeconds(30)).build();
        assertEquals("hello", client.execute(ClientRequest.get("http://svc/hello")).text()); // connected
        List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            fs.add(client.send(ClientRequest.get("http://svc/blocking?i=" + i)));
        }
        for (int i = 0; i < fs.size(); i++) {
            ClientResponse r = fs.get(i).get(60, TimeUnit.SECONDS);
            assertEquals("b=" + i, r.text());
        }
    }

    /** Files, producers and output streams are gathered whole into their frame, larger than the write buffer too. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void bodiesInPiecesArriveWholeInTheirFrame(String transport) throws Exception {
        start(transport);
        String big = pattern(BIG);
        try (TestPeer p = TestPeer.open(server.teleportPort(), 1 << 20)) {
            String[] paths = {"/file", "/small-file", "/produce?n=100000", "/blocking-stream", "/blocking-file", "/async-big", "/hello"};
            for (int round = 0; round < 2; round++) {
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                for (int i = 0; i < paths.length; i++) {
                    all.writeBytes(TestPeer.request(i + 1, TestPeer.get(paths[i])));
                }
                p.write(all.toByteArray());
                for (int i = 0; i < paths.length; i++) {
                    TestPeer.Got g = p.read();
                    assertEquals(200, g.status(), g.text().substring(0, Math.min(200, g.text().length())));
                    String body = g.chunked() ? g.dechunked() : g.body();
                    switch (paths[g.id() - 1]) {
                        case "/small-file":
                            assertEquals("a small file", body);
                            break;
                        case "/produce?n=100000":
                            assertEquals(100_000, body.length());
                            assertTrue(body.startsWith("0987654321"), body.substring(0, 20));
                            break;
                        case "/hello":
                            assertEquals("hello", body);
                            break;
                        default:
                            assertEquals(big, body, paths[g.id() - 1]);
                    }
                }
            }
            // HEAD of a file: its length, no body.
            p.write(TestPeer.request(99, "HEAD /file HTTP/1.1\r\nHost: t\r\n\r\n"));
            TestPeer.Got h = p.read();
            assertTrue(h.text().contains("Content-Length: " + BIG), h.text());
            assertEquals("", h.body());
        }
    }

    /** Past the client's max frame (the test peer states 64 KiB): 500 for that request, the connection goes on. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aResponseAboveTheClientsFrameLimitIs500AndTheConnectionGoesOn(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            String[] paths = {"/file", "/produce?n=1000000", "/blocking-stream", "/async-big", "/failing-producer", "/hello"};
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 0; i < paths.length; i++) {
                all.writeBytes(TestPeer.request(i + 1, TestPeer.get(paths[i])));
            }
            p.write(all.toByteArray());
            for (int i = 0; i < paths.length; i++) {
                TestPeer.Got g = p.read();
                assertEquals(paths[g.id() - 1].equals("/hello") ? 200 : 500, g.status(), paths[g.id() - 1]);
            }
            p.write(TestPeer.request(50, TestPeer.get("/hello")));
            assertEquals("hello", p.read().body());
        }
    }

    /**
     * Interim responses, a blocking handler's and an inline one's, precede the final response in its
     * payload (readers skip them: the client sees the final one).
     */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void interimResponsesOffTheLoopPrecedeTheFinalOneInItsPayload(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(1, TestPeer.get("/hints-blocking")));
            TestPeer.Got g = p.read();
            assertTrue(g.text().startsWith("HTTP/1.1 103 "), g.text());
            assertTrue(g.text().contains("\r\n\r\nHTTP/1.1 200 OK\r\n"), g.text());
            assertTrue(g.text().endsWith("after hints"), g.text());
            p.write(TestPeer.request(2, TestPeer.get("/hints-inline")));
            TestPeer.Got i = p.read();
            assertTrue(i.text().startsWith("HTTP/1.1 103 "), i.text());
            assertTrue(i.text().contains("\r\n\r\nHTTP/1.1 200 OK\r\n"), i.text());
            assertTrue(i.text().endsWith("after hints"), i.text());
        }
        client = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(dev.peregrine.Transport.parse(transport))
                .timeout(Duration.ofSeconds(30)).build();
        for (String path : new String[] {"/hints-blocking", "/hints-inline"}) {
            ClientResponse r = client.execute(ClientRequest.get("http://svc" + path));
            assertEquals(200, r.status());
            assertEquals("after hints", r.text());
        }
    }

    /** A streaming handler gets the frame's whole body through its listener. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aStreamingHandlerGetsTheBufferedBody(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            String body = "x".repeat(5000);
            p.write(TestPeer.request(3, "POST /streaming HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n" + body));
            TestPeer.Got g = p.read();
            assertEquals(3, g.id());
            assertEquals("streamed 5000", g.body());
        }
    }
}
