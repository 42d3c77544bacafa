package dev.peregrine.http2;

import dev.peregrine.Completion;
import dev.peregrine.Execution;
import dev.peregrine.Server;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code res.outputStream()} over HTTP/2 (offloop.PipedOutput): what a blocking or async handler
 * writes leaves as DATA within the peer's windows, END_STREAM at close; a peer that never opens its
 * window blocks the writer with bounded memory; a handler failing mid-body resets only its stream; a
 * HEAD drops the body without holding the writer. Raw frames ({@link H2Wire}), curl by prior
 * knowledge and the JDK HttpClient (h2c upgrade), on every transport.
 */
class Http2OutputStreamTest {
    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int RST_STREAM = 3;
    private static final int WINDOW_UPDATE = 8;
    private static final int INTERNAL_ERROR = 2;
    private static final int CANCEL = 8;
    /** The pieces the handlers write in turn: odd sizes, so the ring wraps anywhere. */
    private static final int[] PIECES = {1, 7, 1000, 16_384, 70_000, 3, 65_536, 12_345};

    /** What a handler and the test share. */
    private static final class Probe {
        final AtomicLong written = new AtomicLong();
        final AtomicReference<Thread> writer = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final CountDownLatch ended = new CountDownLatch(1);
    }

    static byte at(long i) {
        return (byte) (i * 31 + (i >>> 11));
    }

    /** Writes {@code n} bytes of the pattern in {@link #PIECES}, counting them in {@code p}. */
    static void writePattern(OutputStream out, long n, Probe p) throws IOException {
        long i = 0;
        for (int k = 0; i < n; k++) {
            int len = (int) Math.min(PIECES[k % PIECES.length], n - i);
            byte[] piece = new byte[len];
            for (int j = 0; j < len; j++) {
                piece[j] = at(i + j);
            }
            out.write(piece);
            i += len;
            p.written.set(i);
        }
    }

    static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = at(i);
        }
        return b;
    }

    private static Server start(String transport, Probe p) {
        return Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .get("/out", Execution.BLOCKING, (req, res) -> {
                    p.writer.set(Thread.currentThread());
                    try (OutputStream out = res.contentType("application/octet-stream").outputStream()) {
                        writePattern(out, Long.parseLong(req.query().get("n")), p);
                    } catch (IOException | RuntimeException e) {
                        p.failure.set(e);
                        throw e;
                    } finally {
                        p.ended.countDown();
                    }
                })
                .get("/fail", Execution.BLOCKING, (req, res) -> {
                    OutputStream out = res.outputStream();
                    out.write(pattern(100));
                    out.flush();
                    throw new IllegalStateException("the handler failed mid-body (expected by the test)");
                })
                .get("/async-out", (req, res) -> {
                    Completion done = res.async();
                    new Thread(() -> {
                        try (OutputStream out = done.response().outputStream()) {
                            writePattern(out, 200_000, p);
                        } catch (IOException e) {
                            p.failure.set(e);
                        }
                        done.complete();
                    }).start();
                })
                .start();
    }

    private static String text(H2Wire.Frame f) {
        return new String(f.payload(), StandardCharsets.ISO_8859_1);
    }

    /**
     * Reads stream {@code stream}'s response body, opening the stream and connection windows as DATA
     * arrives; checks that only the last DATA ends the stream.
     */
    private static byte[] body(H2Wire w, int stream) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        H2Wire.Frame head = w.until(HEADERS);
        assertNotNull(head);
        assertEquals(stream, head.stream());
        assertFalse(head.endStream());
        while (true) {
            H2Wire.Frame f = w.read();
            assertTrue(f.type() != RST_STREAM, "stream reset: " + (f.type() == RST_STREAM ? f.int32(0) : 0));
            if (f.type() != DATA || f.stream() != stream) {
                continue;
            }
            got.writeBytes(f.payload());
            if (f.payload().length > 0) {
                w.frame(WINDOW_UPDATE, 0, 0, H2Wire.int32(f.payload().length));
                w.frame(WINDOW_UPDATE, 0, stream, H2Wire.int32(f.payload().length));
            }
            if (f.endStream()) {
                return got.toByteArray();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void bytesWrittenInPiecesLeaveAsDataWithEndStreamAtClose(String transport) throws Exception {
        Probe p = new Probe();
        try (Server server = start(transport, p); H2Wire w = new H2Wire(server.port()).start()) {
            int n = 1_048_576 + 3; // 16 windows' worth, through a ring of 64 KiB
            w.headers(1, true, H2Wire.get("/out?n=" + n));
            assertArrayEquals(pattern(n), body(w, 1));
            assertTrue(p.ended.await(20, TimeUnit.SECONDS));
            assertEquals(null, p.failure.get());
            w.headers(3, true, H2Wire.get("/async-out"));
            assertArrayEquals(pattern(200_000), body(w, 3));
            w.headers(5, true, H2Wire.get("/out?n=0")); // opened and closed, nothing written: an empty DATA ends it
            assertEquals(0, body(w, 5).length);
            w.headers(7, true, H2Wire.get("/plaintext"));
            assertEquals("Hello, World!", text(w.until(DATA)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aPeerThatNeverOpensItsWindowBlocksTheWriterWithBoundedMemory(String transport) throws Exception {
        Probe p = new Probe();
        try (Server server = start(transport, p); H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/out?n=" + (64L << 20))); // 64 MiB, never read past the first window
            assertFalse(w.until(HEADERS).endStream());
            long got = 0;
            while (got < 65_535) { // RFC 9113's initial window: the server may send this much and no more
                H2Wire.Frame f = w.until(DATA);
                assertEquals(1, f.stream());
                got += f.payload().length;
            }
            assertEquals(65_535, got);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (p.writer.get() == null || p.writer.get().getState() != Thread.State.WAITING) {
                assertTrue(System.nanoTime() < deadline, "the writer never blocked; written " + p.written.get());
                Thread.sleep(5); // polling a level (the writer's thread state), not standing in for an event
            }
            // the window sent, the ring (64 KiB), and at most the piece being written when it filled
            assertTrue(p.written.get() <= 65_535 + 65_536 + 70_000, "written " + p.written.get());
            w.frame(RST_STREAM, 0, 1, H2Wire.int32(CANCEL));
            assertTrue(p.ended.await(20, TimeUnit.SECONDS));
            assertInstanceOf(IOException.class, p.failure.get(), "the blocked writer learns that its stream is gone");
            w.frame(WINDOW_UPDATE, 0, 0, H2Wire.int32(1 << 20)); // the connection's window, spent by stream 1
            w.headers(3, true, H2Wire.get("/plaintext"));
            assertEquals("Hello, World!", text(w.until(DATA)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aHandlerFailingMidBodyResetsOnlyItsStream(String transport) throws Exception {
        try (Server server = start(transport, new Probe()); H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/fail"));
            H2Wire.Frame head = w.until(HEADERS);
            assertEquals(1, head.stream());
            assertFalse(head.endStream());
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            while (true) {
                H2Wire.Frame f = w.read();
                if (f.type() == DATA) {
                    assertFalse(f.endStream(), "a failed body must not look complete");
                    got.writeBytes(f.payload());
                } else if (f.type() == RST_STREAM) {
                    assertEquals(1, f.stream());
                    assertEquals(INTERNAL_ERROR, f.int32(0));
                    break;
                }
            }
            byte[] prefix = java.util.Arrays.copyOf(pattern(100), got.size());
            assertArrayEquals(prefix, got.toByteArray(), "what arrived is what the handler wrote");
            w.headers(3, true, H2Wire.get("/plaintext"));
            assertEquals("Hello, World!", text(w.until(DATA)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aHeadRequestDropsTheBodyWithoutHoldingTheWriter(String transport) throws Exception {
        Probe p = new Probe();
        try (Server server = start(transport, p); H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.block(":method", "HEAD", ":scheme", "http", ":path", "/out?n=1048576", ":authority", "localhost"));
            H2Wire.Frame head = w.until(HEADERS);
            assertTrue(head.endStream(), "a HEAD response has no DATA");
            assertTrue(p.ended.await(20, TimeUnit.SECONDS), "the writer is not held by a body nobody sends");
            assertEquals(null, p.failure.get());
            assertEquals(1_048_576, p.written.get());
            w.headers(3, true, H2Wire.get("/plaintext"));
            assertEquals("Hello, World!", text(w.until(DATA)));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void curlAndTheJdkClientReadAStreamedBody(String transport) throws Exception {
        Probe p = new Probe();
        try (Server server = start(transport, p)) {
            String url = "http://127.0.0.1:" + server.port() + "/out?n=3000001";
            if (Http2ClientsTest.installed("curl")) {
                Path got = Files.createTempFile("h2-out", ".bin");
                try {
                    assertEquals("2 200", Http2ClientsTest.run("curl", "-s", "--http2-prior-knowledge", "-o", got.toString(),
                            "-w", "%{http_version} %{http_code}", url));
                    assertArrayEquals(pattern(3_000_001), Files.readAllBytes(got));
                } finally {
                    Files.delete(got);
                }
            }
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
            // the first on the h2c upgrade's stream 1 (a blocking handler writing 3 MB), the second on stream 3
            for (int i = 0; i < 2; i++) {
                HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(HttpClient.Version.HTTP_2, r.version());
                assertEquals(200, r.statusCode());
                assertArrayEquals(pattern(3_000_001), r.body());
            }
        }
    }
}
