package dev.peregrine.offloop;

import dev.peregrine.Completion;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class AsyncCompletionTest {
    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;


    @Test
    void completesFromAnotherThreadAndKeepsPipelineOrder() throws Exception {
        BlockingQueue<Completion> waiting = new ArrayBlockingQueue<>(10);
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .post("/later", (req, res) -> waiting.add(res.async()))
                .get("/now", (req, res) -> res.text("now"))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("POST /later?who=x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
                    + "GET /now HTTP/1.1\r\nHost: a\r\n\r\n");
            Completion done = waiting.poll(30, TimeUnit.SECONDS);
            assertNotNull(done);
            // Completed on a thread of its own; the copy of the request is still intact.
            CompletableFuture<Boolean> f = CompletableFuture.supplyAsync(() -> {
                done.response().status(201).header("X-Who", done.request().query().get("who"))
                        .text("later " + done.request().bodyString());
                return done.complete();
            });
            assertTrue(f.get(30, TimeUnit.SECONDS));
            String first = c.read().wire();
            assertTrue(first.startsWith("HTTP/1.1 201 Created\r\n"), first);
            assertTrue(first.contains("X-Who: x\r\n"), first);
            assertTrue(first.endsWith("later abc"), first);
            assertTrue(c.read().wire().endsWith("now"));
            assertFalse(done.complete(), "completing twice is reported by false");
            assertFalse(done.fail(new RuntimeException("late")));
        }
    }

    @Test
    void handlerThatNeverCompletesGets503AndTheConnectionStaysUsable() throws Exception {
        BlockingQueue<Completion> waiting = new ArrayBlockingQueue<>(10);
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .asyncTimeout(Duration.ofMillis(200))
                .get("/never", (req, res) -> waiting.add(res.async()))
                .get("/now", (req, res) -> res.text("now"))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("GET /never HTTP/1.1\r\nHost: a\r\n\r\nGET /now HTTP/1.1\r\nHost: a\r\n\r\n");
            String r = c.read().wire();
            assertTrue(r.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), r);
            assertTrue(c.read().wire().endsWith("now"));
            Completion late = waiting.poll(30, TimeUnit.SECONDS);
            assertNotNull(late);
            assertFalse(late.complete(), "a completion after the timeout returns false");
            // The late completion gave the request's copy back; one more round trip lets the loop run it.
            c.send("GET /now HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().endsWith("now"));
            c.send("GET /now HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().endsWith("now"));
            Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics()); // io_uring: a send buffer until its completion
        }
    }

    @Test
    void completionInsideTheHandlerWorksToo() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/sync", (req, res) -> {
                    Completion c = res.async();
                    c.response().text("same thread");
                    c.complete();
                })
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("GET /sync HTTP/1.1\r\nHost: a\r\n\r\nGET /sync HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
            assertTrue(c.read().wire().endsWith("same thread"));
            String last = c.readToEnd();
            assertTrue(last.contains("Connection: close\r\n") && last.endsWith("same thread"), last);
        }
    }

    @Test
    void failFromAnotherThreadIs500() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/fails", (req, res) -> {
                    Completion c = res.async();
                    CompletableFuture.runAsync(() -> c.fail(new IllegalStateException("expected by the test")));
                })
                .get("/now", (req, res) -> res.text("now"))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("GET /fails HTTP/1.1\r\nHost: a\r\n\r\nGET /now HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().startsWith("HTTP/1.1 500 "));
            assertTrue(c.read().wire().endsWith("now"));
        }
    }

    @Test
    void blockingHandlerMayGoAsyncAndStreamFromItsCompletion() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/handoff", dev.peregrine.Handlers.blocking((req, res) -> {
                    Completion c = res.async();
                    new Thread(() -> {
                        try (java.io.OutputStream out = c.response().outputStream()) {
                            out.write("streamed later".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                        } catch (java.io.IOException e) {
                            c.fail(e);
                            return;
                        }
                        c.complete();
                    }).start();
                }))
                .get("/now", (req, res) -> res.text("now"))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("GET /handoff HTTP/1.1\r\nHost: a\r\n\r\nGET /now HTTP/1.1\r\nHost: a\r\n\r\n");
            StringBuilder got = new StringBuilder();
            while (!got.toString().endsWith("0\r\n\r\n")) {
                int b = c.input().read();
                if (b < 0) {
                    break;
                }
                got.append((char) b);
            }
            assertTrue(got.toString().contains("Transfer-Encoding: chunked\r\n"), got.toString());
            assertTrue(got.toString().endsWith("\r\n\r\ne\r\nstreamed later\r\n0\r\n\r\n"), got.toString());
            assertTrue(c.read().wire().endsWith("now"));
        }
    }
}
