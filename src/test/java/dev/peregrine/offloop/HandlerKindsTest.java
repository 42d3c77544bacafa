package dev.peregrine.offloop;

import dev.peregrine.Completion;
import dev.peregrine.Execution;
import dev.peregrine.Handler;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Limits, shutdown and misuse behave the same whatever runs the handler — inline, blocking, or
 * inline answering later through {@code res.async()} — on both transports, and every handler is
 * wrapped in a decorator as users' middleware wraps them. After each test every pooled buffer is back.
 */
class HandlerKindsTest {
    private Server server;

    private static Handler decorated(Handler h) {
        return (req, res) -> {
            h.handle(req, res);
        };
    }

    /** The route for {@code kind} answering {@code text}: inline, blocking, or async completed from another thread. */
    private static Server.Builder route(Server.Builder b, String kind, String path, String text) {
        switch (kind) {
            case "inline":
                return b.get(path, decorated((req, res) -> res.text(text)));
            case "blocking":
                return b.get(path, Execution.BLOCKING, decorated((req, res) -> res.text(text)));
            default:
                return b.get(path, decorated((req, res) -> {
                    Completion c = res.async();
                    CompletableFuture.runAsync(() -> {
                        c.response().text(text);
                        c.complete();
                    });
                }));
        }
    }

    private Server start(String transport, Server.Builder b) {
        server = b.host("127.0.0.1").port(0).transport(transport).threads(1).start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            try {
                Await.until("buffers back", () -> server.metrics().lentBuffers == 0);
            } finally {
                server.close();
            }
        }
    }

    /** Every transport with each handler kind. */
    static Stream<Object[]> everyKind() {
        return Transports.namesWith("inline", "blocking", "async");
    }

    static Stream<Object[]> offLoopKinds() {
        return Transports.namesWith("blocking", "async");
    }

    static Stream<Object[]> inlineAndBlocking() {
        return Transports.namesWith("inline", "blocking");
    }

    @ParameterizedTest
    @MethodSource("everyKind")
    void maxRequestsPerConnectionCountsEveryHandlerKind(String transport, String kind) throws Exception {
        start(transport, route(Server.builder().maxRequestsPerConnection(2), kind, "/r", "ok"));
        try (RawClient c = new RawClient(server.port())) {
            c.send("GET /r HTTP/1.1\r\nHost: a\r\n\r\n".repeat(3));
            String first = c.read().wire();
            String second = c.read().wire();
            assertTrue(first.startsWith("HTTP/1.1 200 "), first);
            assertFalse(first.contains("Connection: close"), first);
            assertTrue(second.startsWith("HTTP/1.1 200 "), second);
            assertTrue(second.contains("Connection: close"), second);
            assertEquals("", c.readToEnd(), "the third request is not answered");
        }
        Await.until("closed", () -> server.metrics().open == 0);
        assertEquals(2, server.metrics().requests);
    }

    @ParameterizedTest
    @MethodSource("offLoopKinds")
    void shutdownMakesTheResponseUnderWayTheLast(String transport, String kind) throws Exception {
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch closing = new java.util.concurrent.CountDownLatch(1);
        Server.Builder b = Server.builder().shutdownGrace(Duration.ofSeconds(30));
        // The handler holds its answer until close() has begun: the response under way must be the last.
        Handler held = (req, res) -> {
            entered.countDown();
            closing.await(30, TimeUnit.SECONDS);
            res.text("last");
        };
        switch (kind) {
            case "async": // (an inline handler is covered by ShutdownTest: it cannot wait on the loop)
                b.get("/r", decorated((req, res) -> {
                    Completion c = res.async();
                    // A thread of its own: it blocks, so not the common pool, which close() also needs.
                    new Thread(() -> {
                        try {
                            held.handle(c.request(), c.response());
                        } catch (Exception e) {
                            c.fail(e);
                            return;
                        }
                        c.complete();
                    }, "held-handler").start();
                }));
                break;
            default:
                b.get("/r", Execution.BLOCKING, decorated(held));
        }
        start(transport, b);
        try (RawClient c = new RawClient(server.port())) {
            c.send("GET /r HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(entered.await(30, TimeUnit.SECONDS));
            CompletableFuture<Void> stopped = new CompletableFuture<>();
            new Thread(() -> {
                server.close();
                stopped.complete(null);
            }, "closer").start();
            Await.until("shutdown begun", this::stoppingVisible);
            closing.countDown();
            String r = c.read().wire();
            assertTrue(r.startsWith("HTTP/1.1 200 "), r);
            assertTrue(r.contains("Connection: close"), r);
            stopped.get(30, TimeUnit.SECONDS);
        } finally {
            closing.countDown();
        }
    }

    /** Whether the server stopped accepting (its shutdown has begun): a new connection is refused or closed. */
    private boolean stoppingVisible() {
        try (RawClient c = new RawClient(server.port())) {
            return c.send("GET /nothing HTTP/1.1\r\nHost: a\r\n\r\n").closedByServer();
        } catch (java.io.IOException e) {
            return true;
        }
    }

    @ParameterizedTest
    @MethodSource("inlineAndBlocking")
    void aHandlerThatThrowsAfterAsyncGets500AndReturnsItsCopy(String transport, String kind) throws Exception {
        List<Completion> kept = new CopyOnWriteArrayList<>(); // the completion outlives the handler
        Handler h = decorated((req, res) -> {
            kept.add(res.async());
            throw new IllegalStateException("expected by the test");
        });
        start(transport, kind.equals("inline") ? Server.builder().get("/t", h) : Server.builder().get("/t", Execution.BLOCKING, h));
        try (RawClient c = new RawClient(server.port())) {
            c.send("GET /t HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().startsWith("HTTP/1.1 500 "));
        }
        Await.until("the request copy is back while the completion is still held", () -> server.metrics().lentBuffers == 0);
        assertEquals(1, kept.size());
        assertFalse(kept.get(0).complete(), "the completion lost to the failure");
    }

    @ParameterizedTest
    @MethodSource("inlineAndBlocking")
    void anAsyncTimeoutAnswers503LogsTheRouteAndReturnsTheCopy(String transport, String kind) throws Exception {
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel() == Level.WARNING && r.getMessage().contains("asyncTimeout")) {
                    warnings.add(r);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger("dev.peregrine");
        log.addHandler(capture);
        List<Completion> kept = new CopyOnWriteArrayList<>();
        try {
            Handler h = decorated((req, res) -> kept.add(res.async())); // never completed
            Server.Builder b = Server.builder().asyncTimeout(Duration.ofMillis(200));
            start(transport, kind.equals("inline") ? b.get("/never", h) : b.get("/never", Execution.BLOCKING, h));
            try (RawClient c = new RawClient(server.port())) {
                c.send("GET /never HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(c.read().wire().startsWith("HTTP/1.1 503 "));
            }
            Await.until("the request copy is back", () -> server.metrics().lentBuffers == 0);
            assertEquals(1, warnings.size());
            assertTrue(warnings.get(0).getMessage().contains("/never"), warnings.get(0).getMessage());
            assertEquals("/never", kept.get(0).request().path(), "the completion's request stays readable");
        } finally {
            log.removeHandler(capture);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void writingTheOriginalResponseAfterAsyncThrows(String transport) throws Exception {
        start(transport, Server.builder().get("/a", decorated((req, res) -> {
            Completion c = res.async();
            String outcome;
            try {
                res.text("lost");
                outcome = "ignored";
            } catch (IllegalStateException e) {
                outcome = "refused";
            }
            String text = outcome;
            CompletableFuture.runAsync(() -> {
                c.response().text(text);
                c.complete();
            });
        })));
        try (RawClient c = new RawClient(server.port())) {
            c.send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().endsWith("\r\n\r\nrefused"));
        }
    }

    @ParameterizedTest
    @MethodSource("inlineAndBlocking")
    void aProducerCannotReadTheRequestAfterItsHandlerReturned(String transport, String kind) throws Exception {
        Handler h = decorated((req, res) -> {
            String path = req.path(); // copied while valid: fine
            res.stream(dst -> {
                String seen;
                try {
                    seen = req.path();
                } catch (IllegalStateException e) {
                    seen = "refused";
                }
                dst.put((path + " " + seen).getBytes(StandardCharsets.US_ASCII));
                return false;
            });
        });
        start(transport, kind.equals("inline") ? Server.builder().get("/p", h) : Server.builder().get("/p", Execution.BLOCKING, h));
        try (RawClient c = new RawClient(server.port())) {
            c.send("GET /p HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            String all = c.readToEnd();
            assertTrue(all.contains("/p refused"), all);
        }
    }
}
