package dev.peregrine.teleport;

import dev.peregrine.Completion;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A streamed body that fails or overflows in a teleport response is one true WARNING: teleport's
 * "answered 500" (with the failure's trace), never core's "connection closed" ones, since the teleport
 * connection goes on. Over HTTP/1.1 the core WARNING stays, as it is true there. Log lines are caught
 * with a JUL handler on {@code dev.peregrine} (teleport's logger is its child).
 */
class TeleportFailureLogTest {
    private static final String BIG = "y".repeat(200 * 1024);
    private final Logger jul = Logger.getLogger("dev.peregrine");
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private volatile CountDownLatch settled = new CountDownLatch(1);
    private Level before;
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            records.add(r);
            if (r.getMessage() != null && r.getMessage().contains("after its response was settled")) {
                settled.countDown();
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Server server;

    @BeforeEach
    void listen() {
        before = jul.getLevel();
        jul.setLevel(Level.ALL); // the DEBUG (FINE) line that says a settled request's handler failed
        capture.setLevel(Level.ALL);
        jul.addHandler(capture);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        jul.removeHandler(capture);
        jul.setLevel(before);
    }

    private void start(String transport) {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0)
                .get("/inline-producer", (req, res) -> res.stream(dst -> {
                    dst.put((byte) 'x');
                    throw new IllegalStateException("inline producer failed (expected by the test)");
                }))
                .get("/async-producer", (req, res) -> {
                    Completion done = res.async();
                    new Thread(() -> {
                        done.response().stream(dst -> {
                            throw new IllegalStateException("async producer failed (expected by the test)");
                        });
                        done.complete();
                    }).start();
                })
                .get("/stream-then-throw", Handlers.blocking((req, res) -> {
                    OutputStream out = res.outputStream();
                    out.write("part".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    throw new IllegalStateException("handler failed mid-stream (expected by the test)");
                }))
                .get("/stream-overflow", Handlers.blocking((req, res) -> {
                    try (OutputStream out = res.outputStream()) {
                        byte[] all = BIG.getBytes(StandardCharsets.US_ASCII);
                        for (int at = 0; at < all.length; at += 1000) {
                            out.write(all, at, 1000);
                            out.flush();
                        }
                    }
                }))
                .get("/hello", (req, res) -> res.text("hello"))
                .start();
    }

    private List<LogRecord> warnings() {
        return records.stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue()).collect(Collectors.toList());
    }

    private String describe(List<LogRecord> rs) {
        return rs.stream().map(r -> r.getLoggerName() + ": " + r.getMessage()).collect(Collectors.joining("\n"));
    }

    /** One request to {@code path} gets 500, the connection goes on, and exactly one WARNING says why. */
    private LogRecord oneWarningFor(TestPeer p, int id, String path) throws Exception {
        records.clear();
        p.write(TestPeer.request(id, TestPeer.get(path)));
        TestPeer.Got g = p.read();
        assertEquals(id, g.id());
        assertEquals(500, g.status(), path);
        p.write(TestPeer.request(id + 1, TestPeer.get("/hello")));
        assertEquals("hello", p.read().body(), "the connection goes on after " + path);
        List<LogRecord> w = warnings();
        assertEquals(1, w.size(), path + ":\n" + describe(w));
        LogRecord r = w.get(0);
        assertEquals("dev.peregrine.teleport", r.getLoggerName(), r.getMessage());
        assertTrue(r.getMessage().contains("answered 500"), r.getMessage());
        assertTrue(!r.getMessage().contains("connection closed"), r.getMessage());
        return r;
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aFailedBodyIsOneTeleportWarningWithItsCause(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            LogRecord inline = oneWarningFor(p, 1, "/inline-producer");
            assertNotNull(inline.getThrown(), "the producer's trace goes with the line");
            assertTrue(String.valueOf(inline.getThrown().getCause()).contains("inline producer failed"), String.valueOf(inline.getThrown()));

            LogRecord async = oneWarningFor(p, 3, "/async-producer");
            assertNotNull(async.getThrown());
            assertTrue(String.valueOf(async.getThrown().getCause()).contains("async producer failed"), String.valueOf(async.getThrown()));

            LogRecord midStream = oneWarningFor(p, 5, "/stream-then-throw");
            assertTrue(midStream.getMessage().contains("handler failed after its streamed response began"), midStream.getMessage());
            assertTrue(String.valueOf(midStream.getThrown()).contains("handler failed mid-stream"), String.valueOf(midStream.getThrown()));
        }
    }

    /** Past the client's max frame (the test peer states 64 KiB): the overflow's WARNING, then only a DEBUG line for the handler's aborted stream. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aStreamPastTheFrameLimitIsOneWarning(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            settled = new CountDownLatch(1);
            LogRecord r = oneWarningFor(p, 1, "/stream-overflow");
            assertTrue(r.getMessage().contains("frame limit"), r.getMessage());
            // The handler's next write fails ("response aborted") and it throws: wait for that report.
            assertTrue(settled.await(30, TimeUnit.SECONDS), "the handler's failure is reported at DEBUG:\n" + describe(records));
            List<LogRecord> w = warnings();
            assertEquals(1, w.size(), describe(w));
        }
    }

    /** Over HTTP/1.1 the core WARNING is the true one: the connection closes mid-body. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void overHttp11AProducerFailureStillClosesTheConnectionWithItsWarning(String transport) throws Exception {
        start(transport);
        records.clear();
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.getOutputStream().write("GET /inline-producer HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] b = new byte[4096];
            for (int n; (n = in.read(b)) >= 0; ) { // the server closes mid-body
                got.write(b, 0, n);
            }
            String text = got.toString(StandardCharsets.US_ASCII);
            assertTrue(text.startsWith("HTTP/1.1 200 "), text);
            assertTrue(!text.endsWith("0\r\n\r\n"), "truncated: " + text);
        }
        List<LogRecord> w = warnings();
        assertEquals(1, w.size(), describe(w));
        assertTrue(w.get(0).getMessage().contains("connection closed mid-body"), w.get(0).getMessage());
    }
}
