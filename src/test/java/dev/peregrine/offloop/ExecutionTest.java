package dev.peregrine.offloop;

import dev.peregrine.Execution;
import dev.peregrine.Handler;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where handlers run is a property of the route, which no decorator can lose; a handler that holds a
 * loop anyway is reported; a body is never reported empty; the body limit does not change with the
 * handler kind. Every handler here is wrapped in a decorator, as users' middleware wraps them.
 */
class ExecutionTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final int TWO_MB = 2 * 1024 * 1024;
    private Server server;

    /** A user's logging decorator: the kind of wrapper that used to put blocking handlers back on the loop. */
    private static Handler logged(Handler h) {
        return (req, res) -> {
            try {
                h.handle(req, res);
            } finally {
                res.header("X-Logged", "yes");
            }
        };
    }

    private static final Handler THREAD_NAME = (req, res) -> res.text(Thread.currentThread().getName());

    /** Whether {@code threadName} is one of the transport's loop threads. */
    private static boolean onLoop(String threadName, String transport) {
        return threadName.startsWith("peregrine-" + transport + "-");
    }

    private Server start(String transport, Server.Builder b) {
        server = b.host("127.0.0.1").port(0).transport(transport).threads(1).start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private HttpResponse<String> get(String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, byte[] body, boolean chunked) throws Exception {
        HttpRequest.BodyPublisher p = chunked
                ? HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body))
                : HttpRequest.BodyPublishers.ofByteArray(body);
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).POST(p).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void blockingRouteRunsOffTheLoopWhateverWrapsItsHandler(String transport) throws Exception {
        start(transport, Server.builder()
                .get("/inline", logged(THREAD_NAME))
                .get("/blocking", Execution.BLOCKING, logged(THREAD_NAME))
                .get("/marked", Execution.BLOCKING, logged(Handlers.blocking(THREAD_NAME))));
        HttpResponse<String> inline = get("/inline");
        assertTrue(onLoop(inline.body(), transport), inline.body());
        for (String path : List.of("/blocking", "/marked")) {
            HttpResponse<String> r = get(path);
            assertEquals(200, r.statusCode());
            assertEquals("yes", r.headers().firstValue("X-Logged").orElse(""), "the decorator ran");
            assertFalse(onLoop(r.body(), transport), path + " ran on " + r.body());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void serverWideBlockingExecutionCoversRoutesRegisteredBeforeIt(String transport) throws Exception {
        start(transport, Server.builder()
                .get("/before", logged(THREAD_NAME))
                .execution(Execution.BLOCKING)
                .get("/after", logged(THREAD_NAME))
                .get("/loop", Execution.LOOP, logged(THREAD_NAME)));
        assertFalse(onLoop(get("/before").body(), transport));
        assertFalse(onLoop(get("/after").body(), transport));
        assertTrue(onLoop(get("/loop").body(), transport));
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void handlerHoldingTheLoopIsReportedWithItsRouteAndStack(String transport) throws Exception {
        List<LogRecord> warnings = new CopyOnWriteArrayList<>();
        CountDownLatch reported = new CountDownLatch(1);
        Logger log = Logger.getLogger("dev.peregrine");
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel() == Level.WARNING && r.getMessage().contains("has held event loop")) {
                    warnings.add(r);
                    reported.countDown();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        try {
            // The handler holds its loop until the watchdog has reported it (bounded): a handler that
            // blocks, without any guess at how long the report takes.
            start(transport, Server.builder().blockedLoopWarning(Duration.ofMillis(100))
                    .get("/hold", logged(Handlers.blocking((req, res) -> res.text("never off the loop"))))
                    .get("/stuck", logged((req, res) -> res.text(String.valueOf(reported.await(30, TimeUnit.SECONDS))))));
            assertEquals("true", get("/stuck").body());
            assertEquals(1, warnings.size());
            LogRecord r = warnings.get(0);
            assertTrue(r.getMessage().contains("GET /stuck"), r.getMessage());
            boolean handlerInStack = false;
            for (StackTraceElement e : r.getThrown().getStackTrace()) {
                handlerInStack |= e.getClassName().startsWith(ExecutionTest.class.getName());
            }
            assertTrue(handlerInStack, "the loop's stack shows the handler");
            assertEquals(1, server.metrics().blockedLoopWarnings);
        } finally {
            log.removeHandler(capture);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aStreamedBodyIsReadWholeByTheInMemoryCalls(String transport) throws Exception {
        // The body's limit is the route's (maxStreamedBodySize), not its framing's: above the stream
        // threshold, bodyString() reads the stream whole instead of failing (it answered 500 before).
        start(transport, Server.builder().maxBodySize(4 * 1024 * 1024)
                .post("/string", Execution.BLOCKING, logged((req, res) -> res.text("length " + req.bodyString().length())))
                .post("/stream", Execution.BLOCKING, logged((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text("length " + in.readAllBytes().length);
                    }
                })));
        byte[] body = new byte[TWO_MB];
        java.util.Arrays.fill(body, (byte) 'x');
        assertEquals("length " + TWO_MB, post("/string", body, false).body());
        assertEquals("length " + TWO_MB, post("/stream", body, false).body());
        // Chunked, the same body is read whole (it is not streamed): same length either way.
        assertEquals("length " + TWO_MB, post("/string", body, true).body());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void theBodyLimitIsTheSameForEveryHandlerKind(String transport) throws Exception {
        start(transport, Server.builder().maxBodySize(TWO_MB)
                .post("/inline", logged((req, res) -> res.text("read " + req.bodyLength())))
                .post("/blocking", Execution.BLOCKING, logged((req, res) -> {
                    try (InputStream in = req.bodyStream()) {
                        res.text("read " + in.readAllBytes().length);
                    }
                })));
        // One byte over: refused from the head alone, the same for both (a raw client, so that the
        // answer is read before any body is sent).
        for (String path : List.of("/inline", "/blocking")) {
            try (RawClient c = new RawClient(server.port())) {
                c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: " + (TWO_MB + 1) + "\r\n\r\n");
                String r = c.read().wire();
                assertTrue(r.startsWith("HTTP/1.1 413 "), path + ": " + r);
            }
        }
        byte[] at = new byte[TWO_MB];
        assertEquals("read " + TWO_MB, post("/inline", at, false).body());
        assertEquals("read " + TWO_MB, post("/blocking", at, false).body());
    }
}
