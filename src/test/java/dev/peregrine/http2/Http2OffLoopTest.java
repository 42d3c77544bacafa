package dev.peregrine.http2;

import dev.peregrine.Completion;
import dev.peregrine.Execution;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Handlers off the loop over HTTP/2 streams (raw frames, {@link H2Wire}): a blocking route and an
 * inline handler's {@code res.async()} answer on their own streams while the connection's other
 * streams are served; a stream reset, or a connection closed, while its handler runs gets nothing
 * and leaves no pooled buffer lent; interim responses are HEADERS without END_STREAM; what still
 * needs HTTP/1.1 (a streamed request body) refuses the stream. On every transport.
 */
class Http2OffLoopTest {
    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int RST_STREAM = 3;
    private static final int PING = 6;

    /** Latches a test opens for the blocking handler of {@code /slow}. */
    private static final class Gate {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
    }

    private static Server start(String transport, Gate gate) {
        return Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/slow", Execution.BLOCKING, (req, res) -> {
                    gate.entered.countDown();
                    try {
                        assertTrue(gate.release.await(20, TimeUnit.SECONDS));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    res.text("slow " + req.version() + " " + req.query().get("n"));
                })
                .post("/blocking-echo", Execution.BLOCKING, (req, res) -> res.body(req.body()))
                .get("/where", Execution.BLOCKING, (req, res) -> res.text(req.method() + " " + req.path() + " "
                        + req.query().get("q") + " " + req.header("x-a") + " " + req.host()))
                .get("/async", (req, res) -> {
                    Completion done = res.async();
                    new Thread(() -> {
                        done.response().header("X-Later", "yes");
                        done.response().text("async " + done.request().query().get("n"));
                        done.complete();
                    }).start();
                })
                .get("/interim", (req, res) -> {
                    res.interim(103, "Link", "</style.css>; rel=preload");
                    res.text("after interim");
                })
                .get("/interim-blocking", Execution.BLOCKING, (req, res) -> {
                    res.interim(103, "Link", "</app.js>; rel=preload");
                    res.text("after blocking interim");
                })
                .get("/streamed", Execution.BLOCKING, (req, res) -> {
                    try (java.io.OutputStream out = res.outputStream()) {
                        out.write("streamed over h2".getBytes(StandardCharsets.US_ASCII));
                    }
                })
                .post("/streaming", Handlers.streaming((req, res) -> res.text("streaming")))
                .start();
    }

    private static String text(H2Wire.Frame f) {
        return new String(f.payload(), StandardCharsets.ISO_8859_1);
    }

    /** Reads frames until a DATA frame of {@code stream} (returned); every frame read is added to {@code seen}. */
    private static H2Wire.Frame dataOf(H2Wire w, int stream, List<H2Wire.Frame> seen) throws Exception {
        while (true) {
            H2Wire.Frame f = w.read();
            seen.add(f);
            if (f.type() == DATA && f.stream() == stream) {
                return f;
            }
        }
    }

    /** Waits until the loop's pool has taken back what it lent beyond {@code baseline} buffers. */
    private static void awaitLent(Server server, long baseline) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (server.metrics().lentBuffers > baseline) {
            assertTrue(System.nanoTime() < deadline, "pooled buffers still lent: " + server.metrics());
            Thread.sleep(10); // polling a level the loop sets, not standing in for an event
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aSlowBlockingStreamDoesNotHoldTheOthersBack(String transport) throws Exception {
        Gate gate = new Gate();
        try (Server server = start(transport, gate); H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/slow?n=1"));
            assertTrue(gate.entered.await(20, TimeUnit.SECONDS), "the blocking handler did not start");
            // stream 1's handler is held until the inline and async streams behind it are answered
            List<H2Wire.Frame> seen = new ArrayList<>();
            w.headers(3, true, H2Wire.get("/plaintext"));
            assertEquals("Hello, World!", text(dataOf(w, 3, seen)));
            w.headers(5, true, H2Wire.get("/async?n=5"));
            assertEquals("async 5", text(dataOf(w, 5, seen)));
            for (H2Wire.Frame f : seen) {
                assertTrue(f.stream() != 1, "stream 1 answered before its handler was released");
            }
            gate.release.countDown();
            H2Wire.Frame slow = dataOf(w, 1, seen);
            assertEquals("slow HTTP/2.0 1", text(slow));
            assertTrue(slow.endStream());
            // a blocking handler reading an in-memory body
            String body = "b".repeat(40_000); // more than one DATA frame, within the client's 65,535-byte window
            w.frame(HEADERS, 4, 7, H2Wire.block(":method", "POST", ":scheme", "http", ":path", "/blocking-echo",
                    ":authority", "localhost", "content-length", String.valueOf(body.length())));
            byte[] bytes = body.getBytes(StandardCharsets.ISO_8859_1);
            for (int at = 0; at < bytes.length; at += 16_384) {
                int n = Math.min(16_384, bytes.length - at);
                w.frame(DATA, at + n == bytes.length ? 1 : 0, 7, java.util.Arrays.copyOfRange(bytes, at, at + n));
            }
            StringBuilder echoed = new StringBuilder();
            H2Wire.Frame f;
            do {
                f = dataOf(w, 7, seen);
                echoed.append(text(f));
            } while (!f.endStream());
            assertEquals(body, echoed.toString());
            // pseudo-fields in any order (RFC 9113 §8.3): the request's copy for the blocking handler keeps them all
            w.headers(9, true, H2Wire.block(":path", "/where?q=1", ":authority", "example.test",
                    ":method", "GET", ":scheme", "http", "x-a", "b"));
            assertEquals("GET /where 1 b example.test", text(dataOf(w, 9, seen)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aStreamResetWhileItsHandlerRunsGetsNothing(String transport) throws Exception {
        Gate gate = new Gate();
        try (Server server = start(transport, gate); H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/plaintext"));
            assertNotNull(w.until(DATA));
            long baseline = server.metrics().lentBuffers;
            w.headers(3, true, H2Wire.get("/slow?n=3"));
            assertTrue(gate.entered.await(20, TimeUnit.SECONDS));
            w.frame(RST_STREAM, 0, 3, H2Wire.int32(0x8)); // CANCEL
            w.frame(PING, 0, 0, new byte[8]); // its ACK: the server has read the reset (frames are taken in order)
            assertNotNull(w.until(PING));
            gate.release.countDown();
            awaitLent(server, baseline); // the exchange ended: its pooled copy of the request is back
            w.frame(PING, 0, 0, new byte[8]);
            List<H2Wire.Frame> seen = new ArrayList<>();
            H2Wire.Frame f;
            do {
                f = w.read();
                seen.add(f);
            } while (f.type() != PING);
            for (H2Wire.Frame s : seen) {
                assertTrue(s.stream() != 3, "a frame on the reset stream: type " + s.type());
            }
            w.headers(5, true, H2Wire.get("/plaintext")); // the connection goes on
            assertEquals("Hello, World!", text(dataOf(w, 5, seen)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aConnectionClosedWhileAHandlerRunsLeavesNothingLent(String transport) throws Exception {
        Gate gate = new Gate();
        try (Server server = start(transport, gate)) {
            long baseline = server.metrics().lentBuffers;
            try (H2Wire w = new H2Wire(server.port()).start()) {
                w.headers(1, true, H2Wire.get("/slow?n=1"));
                assertTrue(gate.entered.await(20, TimeUnit.SECONDS));
            }
            gate.release.countDown();
            awaitLent(server, baseline);
            try (H2Wire w = new H2Wire(server.port()).start()) { // other connections are served
                w.headers(1, true, H2Wire.get("/async?n=9"));
                assertEquals("async 9", text(w.until(DATA)));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void anAsyncTimeoutAnswers503OnItsStreamAndTheLateAnswerIsDropped(String transport) throws Exception {
        Gate gate = new Gate();
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .asyncTimeout(java.time.Duration.ofMillis(300))
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/slow", Execution.BLOCKING, (req, res) -> {
                    gate.entered.countDown();
                    gate.release.await(20, TimeUnit.SECONDS); // the timeout interrupts this wait
                    res.text("too late");
                }).start();
             H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/plaintext"));
            assertNotNull(w.until(DATA));
            long baseline = server.metrics().lentBuffers;
            w.headers(3, true, H2Wire.get("/slow"));
            H2Wire.Frame headers = w.until(HEADERS);
            assertEquals(3, headers.stream());
            // :status 503, a literal without indexing of static name 8 (RFC 7541 §6.2.2)
            assertEquals("\u0008\u0003503", new String(headers.payload(), 0, 5, StandardCharsets.ISO_8859_1));
            gate.release.countDown();
            awaitLent(server, baseline);
            w.headers(5, true, H2Wire.get("/plaintext"));
            List<H2Wire.Frame> seen = new ArrayList<>();
            assertEquals("Hello, World!", text(dataOf(w, 5, seen)));
            for (H2Wire.Frame f : seen) {
                assertTrue(f.stream() != 3 || f.type() == DATA && f.endStream(), "more on stream 3 after its 503");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void everyKindOfStreamIsTimed(String transport) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .requestDurations(true)
                .get("/inline", (req, res) -> res.text("inline"))
                .get("/blocking", Execution.BLOCKING, (req, res) -> res.text("blocking"))
                .get("/async", (req, res) -> {
                    Completion done = res.async();
                    new Thread(() -> {
                        done.response().status(202).text("async");
                        done.complete();
                    }).start();
                }).start();
             H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/inline"));
            w.headers(3, true, H2Wire.get("/blocking"));
            w.headers(5, true, H2Wire.get("/async"));
            w.headers(7, true, H2Wire.get("/none"));
            java.util.Set<Integer> ended = new java.util.HashSet<>();
            while (ended.size() < 4) { // in whatever order they finish
                H2Wire.Frame f = w.read();
                if ((f.type() == DATA || f.type() == HEADERS) && f.endStream()) {
                    ended.add(f.stream());
                }
            }
            dev.peregrine.testing.Await.until("the four streams timed", () -> {
                dev.peregrine.Metrics m = server.metrics();
                return m.requestDurationCount("/inline", "GET", 200) == 1 && m.requestDurationCount("/blocking", "GET", 200) == 1
                        && m.requestDurationCount("/async", "GET", 202) == 1 && m.requestDurationCount("", "GET", 404) == 1;
            });
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void builderLimitsAreAdvertisedAndHeld(String transport) throws Exception {
        Gate gate = new Gate();
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport)
                .http2(dev.peregrine.Http2Options.builder().maxConcurrentStreams(2).build())
                .get("/slow", Execution.BLOCKING, (req, res) -> {
                    gate.entered.countDown();
                    assertTrue(gate.release.await(20, TimeUnit.SECONDS));
                    res.text("slow");
                }).start();
             H2Wire w = new H2Wire(server.port()).start()) {
            H2Wire.Frame settings = w.until(4);
            boolean advertised = false;
            for (int at = 0; at + 6 <= settings.payload().length; at += 6) {
                int id = (settings.payload()[at] & 0xff) << 8 | (settings.payload()[at + 1] & 0xff);
                advertised |= id == 3 && settings.int32(at + 2) == 2; // SETTINGS_MAX_CONCURRENT_STREAMS
            }
            assertTrue(advertised, "SETTINGS_MAX_CONCURRENT_STREAMS 2 not advertised");
            w.headers(1, true, H2Wire.get("/slow"));
            w.headers(3, true, H2Wire.get("/slow"));
            w.headers(5, true, H2Wire.get("/slow")); // a third while two are open: refused
            H2Wire.Frame rst = w.until(RST_STREAM);
            assertEquals(5, rst.stream());
            assertEquals(0x7, rst.int32(0)); // REFUSED_STREAM
            gate.release.countDown();
            List<H2Wire.Frame> seen = new ArrayList<>();
            assertEquals("slow", text(dataOf(w, 1, seen)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void interimResponsesAreHeadersWithoutEndStream(String transport) throws Exception {
        try (Server server = start(transport, new Gate()); H2Wire w = new H2Wire(server.port()).start()) {
            for (int stream : new int[] {1, 3}) {
                w.headers(stream, true, H2Wire.get(stream == 1 ? "/interim" : "/interim-blocking"));
                H2Wire.Frame interim = w.until(HEADERS);
                assertEquals(stream, interim.stream());
                assertEquals(0, interim.flags() & 1, "an interim response must not end the stream (RFC 9113 §8.1)");
                // :status 103, a literal without indexing of static name 8 (RFC 7541 §6.2.2)
                assertEquals("\u0008\u0003103", new String(interim.payload(), 0, 5, StandardCharsets.ISO_8859_1));
                H2Wire.Frame last = w.until(HEADERS);
                assertEquals(stream, last.stream());
                assertEquals(0x88, last.payload()[0] & 0xff); // :status 200, static index 8
                assertEquals(stream == 1 ? "after interim" : "after blocking interim", text(w.until(DATA)));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aStreamingRouteAndAnOutputStreamAreServedOverH2(String transport) throws Exception {
        try (Server server = start(transport, new Gate()); H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/streamed")); // res.outputStream() in a blocking handler: DATA (Http2OutputStreamTest)
            H2Wire.Frame data = w.until(DATA);
            assertEquals(1, data.stream());
            assertEquals("streamed over h2", text(data));
            // a streaming route (no longer refused with HTTP_1_1_REQUIRED; bodies in pieces: Http2StreamingBodyTest)
            w.headers(3, true, H2Wire.block(":method", "POST", ":scheme", "http", ":path", "/streaming", ":authority", "localhost"));
            H2Wire.Frame answered = dataOf(w, 3, new java.util.ArrayList<>()); // stream 1 may still end with an empty DATA
            assertEquals("streaming", text(answered));
            w.headers(5, true, H2Wire.get("/plaintext"));
            assertEquals("Hello, World!", text(dataOf(w, 5, new java.util.ArrayList<>())));
        }
    }
}
