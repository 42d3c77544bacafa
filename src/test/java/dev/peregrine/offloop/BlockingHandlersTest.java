package dev.peregrine.offloop;

import dev.peregrine.Handlers;
import dev.peregrine.Request;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class BlockingHandlersTest {
    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;


    @Test
    void thousandBlockingHandlersInFlightWhileInlineRoutesAnswer() throws Exception {
        int n = 1000;
        CountDownLatch entered = new CountDownLatch(n);
        CountDownLatch release = new CountDownLatch(1);
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .blockingPoolSize(n) // JDK 17-20: the platform pool must hold them all; 21+: virtual threads
                .get("/block", Handlers.blocking((req, res) -> {
                    entered.countDown();
                    if (!release.await(120, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("never released");
                    }
                    res.text("done " + req.query().get("i"));
                }))
                .get("/inline", (req, res) -> res.text("inline"))
                .start()) {
            List<RawClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) {
                    RawClient c = new RawClient(server.port());
                    clients.add(c);
                    c.send("GET /block?i=" + i + " HTTP/1.1\r\nHost: a\r\n\r\n");
                }
                assertTrue(entered.await(120, TimeUnit.SECONDS), "all " + n + " handlers entered at once");
                // The loop still answers inline routes while every blocking handler waits.
                HttpClient http = HttpClient.newHttpClient();
                for (int i = 0; i < 3; i++) {
                    HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + server.port() + "/inline")).build(), HttpResponse.BodyHandlers.ofString());
                    assertEquals("inline", r.body());
                }
                release.countDown();
                for (int i = 0; i < n; i++) {
                    String r = clients.get(i).read().wire();
                    assertTrue(r.startsWith("HTTP/1.1 200 OK\r\n"), r);
                    assertTrue(r.endsWith("\r\n\r\ndone " + i), r);
                }
            } finally {
                release.countDown();
                for (RawClient c : clients) {
                    c.close();
                }
            }
        }
    }

    @Test
    void mixedPipelineIsAnsweredInOrder() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/slow", Handlers.blocking((req, res) -> {
                    Thread.yield();
                    res.text("slow " + req.query().get("i"));
                }))
                .post("/echo", Handlers.blocking((req, res) -> res.text("echo " + req.bodyString())))
                .get("/fast", (req, res) -> res.text("fast " + req.query().get("i")))
                .start();
             RawClient c = new RawClient(server.port())) {
            StringBuilder wire = new StringBuilder();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                switch (i % 3) {
                    case 0:
                        wire.append("GET /slow?i=").append(i).append(" HTTP/1.1\r\nHost: a\r\n\r\n");
                        expected.add("slow " + i);
                        break;
                    case 1:
                        wire.append("GET /fast?i=").append(i).append(" HTTP/1.1\r\nHost: a\r\n\r\n");
                        expected.add("fast " + i);
                        break;
                    default:
                        String body = "b" + i;
                        wire.append("POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: ").append(body.length())
                                .append("\r\n\r\n").append(body);
                        expected.add("echo " + body);
                        break;
                }
            }
            c.send(wire.toString());
            for (String e : expected) {
                String r = c.read().wire();
                assertTrue(r.endsWith("\r\n\r\n" + e), "expected " + e + " in " + r);
            }
            // The connection is still usable afterwards.
            c.send("GET /fast?i=end HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().endsWith("fast end"));
        }
    }

    @Test
    void blockingHandlerFailureIs500AndTheConnectionCarriesOn() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/boom", Handlers.blocking((req, res) -> {
                    throw new IllegalStateException("expected by the test");
                }))
                .get("/fast", (req, res) -> res.text("fast"))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("GET /boom HTTP/1.1\r\nHost: a\r\n\r\nGET /fast HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().startsWith("HTTP/1.1 500 "));
            assertTrue(c.read().wire().endsWith("fast"));
            // One more round trip: the loop has finished with the exchange (and returned its copy) by then.
            c.send("GET /fast HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().endsWith("fast"));
            Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics()); // io_uring: a send buffer until its completion
        }
    }

    @Test
    void copiedRequestOutlivesTheHandler() throws Exception {
        AtomicReference<Request> kept = new AtomicReference<>();
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .post("/items/{id}", (req, res) -> {
                    kept.set(req.copy());
                    res.status(204);
                })
                .get("/other", (req, res) -> res.text("other"))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("POST /items/42?x=y%20z HTTP/1.1\r\nHost: a\r\nX-Tag: t1\r\nContent-Length: 5\r\n\r\nhello"
                    + "GET /other HTTP/1.1\r\nHost: overwritten-bytes\r\n\r\n");
            c.read().wire();
            c.read().wire();
            Request r = kept.get();
            assertEquals("POST", r.method());
            assertEquals("/items/42", r.path());
            assertEquals("42", r.pathParam("id"));
            assertEquals("y z", r.query().get("x"));
            assertEquals("t1", r.header("X-Tag"));
            assertEquals("a", r.header("Host"));
            assertEquals("hello", r.bodyString());
            assertEquals("hello", new String(r.bodyStream().readAllBytes()));
        }
    }

    @Test
    void halfClosedClientStillGetsItsOffLoopAnswers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/slow", Handlers.blocking((req, res) -> {
                    release.await(60, TimeUnit.SECONDS);
                    res.text("slow");
                }))
                .get("/fast", (req, res) -> res.text("fast"))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("GET /fast HTTP/1.1\r\nHost: a\r\n\r\nGET /slow HTTP/1.1\r\nHost: a\r\n\r\n"
                    + "GET /fast HTTP/1.1\r\nHost: a\r\n\r\n");
            c.halfClose(); // like printf ... | nc: FIN after the last request
            assertTrue(c.read().wire().endsWith("fast"));
            release.countDown();
            String rest = c.readToEnd();
            assertTrue(rest.contains("\r\n\r\nslow"), rest);
            assertTrue(rest.endsWith("\r\n\r\nfast"), "the request held behind it is answered too: " + rest);
        }
    }

    @Test
    void reusedExchangesCarryEachRequestsOwnHeadAndBody() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .post("/items/{id}", Handlers.blocking((req, res) -> res.text(req.pathParam("id") + " "
                        + req.headers().size() + " " + req.header("X-" + req.pathParam("id")) + " " + req.bodyString())))
                .start();
             RawClient c = new RawClient(server.port())) {
            StringBuilder wire = new StringBuilder();
            for (int i = 0; i < 50; i++) {
                wire.append("POST /items/").append(i).append(" HTTP/1.1\r\nHost: a\r\n");
                for (int h = 0; h <= i % 5; h++) {
                    wire.append("X-").append(i - h).append(": v").append(i - h).append("\r\n");
                }
                String body = "body" + "x".repeat(i);
                wire.append("Content-Length: ").append(body.length()).append("\r\n\r\n").append(body);
            }
            c.send(wire.toString());
            for (int i = 0; i < 50; i++) {
                String r = c.read().wire();
                String want = i + " " + (3 + i % 5) + " v" + i + " body" + "x".repeat(i);
                assertTrue(r.endsWith("\r\n\r\n" + want), "want " + want + " in " + r);
            }
        }
    }
}
