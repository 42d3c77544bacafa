package dev.peregrine.offloop;

import dev.peregrine.BodyListener;
import dev.peregrine.Completion;
import dev.peregrine.Handler;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class StreamingTest {
    private static final long GIB = 1L << 30;

    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;

    @Test
    void oneGibUploadStreamsThroughABlockingHandlerInBoundedMemory() throws Exception {
        AtomicLong maxLent = new AtomicLong();
        AtomicLong maxDirect = new AtomicLong();
        long directBefore = directMemoryUsed();
        Server[] holder = new Server[1];
        try (Server server = Server.builder().transport(transport).port(0).threads(1).maxStreamedBodySize(GIB)
                .post("/upload", Handlers.blocking((req, res) -> {
                    assertTrue(req.bodyStreamed());
                    byte[] buf = new byte[64 * 1024];
                    long total = 0;
                    CRC32 crc = new CRC32();
                    int reads = 0;
                    try (InputStream in = req.bodyStream()) {
                        int n;
                        while ((n = in.read(buf)) >= 0) {
                            total += n;
                            crc.update(buf, 0, n);
                            if ((++reads & 63) == 0) {
                                maxLent.accumulateAndGet(holder[0].metrics().lentBytes, Math::max);
                                maxDirect.accumulateAndGet(directMemoryUsed(), Math::max);
                            }
                        }
                    }
                    res.text(total + " " + Long.toHexString(crc.getValue()));
                }))
                .start()) {
            holder[0] = server;
            try (RawClient c = new RawClient(server.port())) {
                c.send("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: " + GIB + "\r\n\r\n");
                byte[] block = new byte[256 * 1024];
                new Random(7).nextBytes(block);
                CRC32 crc = new CRC32();
                for (long sent = 0; sent < GIB; sent += block.length) {
                    c.output().write(block);
                    crc.update(block);
                }
                c.output().flush();
                String r = c.read().wire();
                assertTrue(r.endsWith("\r\n\r\n" + GIB + " " + Long.toHexString(crc.getValue())), r);
            }
            // Server memory grew by far less than the body: the pool lent almost nothing, and direct
            // memory (pool buffers, socket buffers of both sides) stayed within a few MiB.
            assertTrue(maxLent.get() < 1 << 20, "pool lent at most " + maxLent.get());
            assertTrue(maxDirect.get() - directBefore < 64L << 20, "direct memory grew by " + (maxDirect.get() - directBefore));
        }
    }

    @Test
    void inlineStreamingHandlerGetsTheBodyThroughItsListener() throws Exception {
        long size = 256L << 20;
        Handler counting = (req, res) -> {
            CRC32 crc = new CRC32();
            long[] count = {0};
            Completion done = res.async();
            boolean streamed = req.bodyStreamed();
            req.onBody(new BodyListener() {
                @Override
                public void onData(ByteBuffer data) {
                    count[0] += data.remaining();
                    crc.update(data);
                }

                @Override
                public void onEnd() {
                    done.response().text(streamed + " " + count[0] + " " + Long.toHexString(crc.getValue()));
                    done.complete();
                }
            });
        };
        try (Server server = Server.builder().transport(transport).port(0).threads(1).maxStreamedBodySize(size)
                .post("/count", Handlers.streaming(counting))
                .post("/refuse", Handlers.streaming((req, res) -> res.status(403)))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("POST /count HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello");
            CRC32 small = new CRC32();
            small.update("hello".getBytes(StandardCharsets.US_ASCII));
            String first = c.read().wire();
            assertTrue(first.endsWith("false 5 " + Long.toHexString(small.getValue())), first);
            c.send("POST /count HTTP/1.1\r\nHost: a\r\nContent-Length: " + size + "\r\n\r\n");
            byte[] block = new byte[256 * 1024];
            new Random(3).nextBytes(block);
            CRC32 crc = new CRC32();
            for (long sent = 0; sent < size; sent += block.length) {
                c.output().write(block);
                crc.update(block);
            }
            String r = c.read().wire();
            assertTrue(r.endsWith("true " + size + " " + Long.toHexString(crc.getValue())), r);
            // One more exchange: by its answer the loop has returned the previous one's copy.
            c.send("POST /count HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello");
            c.read().wire();
            c.send("POST /count HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello");
            c.read().wire();
            long lent = server.metrics().lentBuffers;
            assertTrue(lent <= 1, "at most the last exchange's head copy is still lent: " + lent);
        }
        try (Server server = Server.builder().transport(transport).port(0).threads(1).maxStreamedBodySize(100_000_000)
                .post("/refuse", Handlers.streaming((req, res) -> res.status(403)))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("POST /refuse HTTP/1.1\r\nHost: a\r\nContent-Length: 100000000\r\n\r\nabc");
            String r = c.read().wire();
            assertTrue(r.startsWith("HTTP/1.1 403 Forbidden\r\n") && r.contains("Connection: close\r\n"), r);
        }
    }

    @Test
    void streamedBodyAboveItsLimitIs413FromTheHead() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .streamBodyThreshold(1024).maxStreamedBodySize(1 << 20)
                .post("/upload", Handlers.blocking((req, res) -> res.text("read " + req.bodyStream().readAllBytes().length)))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 2000000\r\n\r\n");
            String r = c.readToEnd();
            assertTrue(r.startsWith("HTTP/1.1 413 "), r);
        }
    }

    @Test
    void streamedBodyThenPipelinedRequestKeepsOrder() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .streamBodyThreshold(10)
                .post("/upload", Handlers.blocking((req, res) -> res.text("read " + new String(req.bodyStream().readAllBytes(), StandardCharsets.US_ASCII))))
                .get("/fast", (req, res) -> res.text("fast"))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 26\r\n\r\nabcdefghijklm");
            c.send("nopqrstuvwxyzGET /fast HTTP/1.1\r\nHost: a\r\n\r\n");
            assertTrue(c.read().wire().endsWith("read abcdefghijklmnopqrstuvwxyz"));
            assertTrue(c.read().wire().endsWith("fast"));
        }
    }

    @Test
    void oneGibChunkedResponseConsumedByHttpClient() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/big", Handlers.blocking((req, res) -> {
                    res.contentType("application/octet-stream");
                    byte[] block = new byte[64 * 1024];
                    Arrays.fill(block, (byte) 'x');
                    OutputStream out = res.outputStream();
                    for (long sent = 0; sent < GIB; sent += block.length) {
                        out.write(block);
                    }
                }))
                .start()) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(); // chunked framing is HTTP/1.1's
            HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/big")).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals(200, r.statusCode());
            assertEquals("chunked", r.headers().firstValue("Transfer-Encoding").orElse(""));
            long total = 0;
            byte[] buf = new byte[256 * 1024];
            try (InputStream in = r.body()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    total += n;
                }
            }
            assertEquals(GIB, total);
        }
    }

    @Test
    void inlineProducerIsPulledAsTheSocketDrains() throws Exception {
        long total = 64L << 20;
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/produced", (req, res) -> {
                    long[] left = {total};
                    res.contentType("application/octet-stream").stream(dst -> {
                        int n = (int) Math.min(dst.remaining(), left[0]);
                        for (int i = 0; i < n; i++) {
                            dst.put((byte) 'p');
                        }
                        left[0] -= n;
                        return left[0] > 0;
                    });
                })
                .get("/broken", (req, res) -> {
                    int[] calls = {0};
                    res.stream(dst -> {
                        if (calls[0]++ > 0) {
                            throw new IllegalStateException("expected by the test");
                        }
                        dst.put((byte) 'b');
                        return true;
                    });
                })
                .get("/fast", (req, res) -> res.text("fast"))
                .start()) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(); // chunked framing is HTTP/1.1's
            HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/produced")).build(), HttpResponse.BodyHandlers.ofInputStream());
            assertEquals("chunked", r.headers().firstValue("Transfer-Encoding").orElse(""));
            long got = 0;
            try (InputStream in = r.body()) {
                byte[] buf = new byte[64 * 1024];
                int n;
                while ((n = in.read(buf)) >= 0) {
                    for (int i = 0; i < n; i++) {
                        if (buf[i] != 'p') {
                            throw new AssertionError("unexpected byte at " + (got + i));
                        }
                    }
                    got += n;
                }
            }
            assertEquals(total, got);
            try (RawClient c = new RawClient(server.port())) {
                // Pipelined behind a produced body: answered after it; the producer's 0-byte end is framed.
                c.send("GET /broken HTTP/1.1\r\nHost: a\r\n\r\nGET /fast HTTP/1.1\r\nHost: a\r\n\r\n");
                String all = c.readToEnd();
                assertTrue(all.startsWith("HTTP/1.1 200 OK\r\n"), all);
                assertTrue(all.endsWith("00000001\r\nb\r\n"), "truncated, one status line: " + all);
                assertEquals(all.indexOf("HTTP/1.1"), all.lastIndexOf("HTTP/1.1"));
            }
        }
    }

    @Test
    void producerIsNotPulledWhileTheClientIsNotReading() throws Exception {
        long total = 64L << 20;
        AtomicLong produced = new AtomicLong();
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/produced", (req, res) -> {
                    long[] left = {total};
                    res.contentType("application/octet-stream").stream(dst -> {
                        int n = (int) Math.min(dst.remaining(), left[0]);
                        dst.position(dst.position() + n);
                        left[0] -= n;
                        produced.addAndGet(n);
                        return left[0] > 0;
                    });
                })
                .get("/fast", (req, res) -> res.text("fast"))
                .start();
             RawClient stalled = new RawClient(server.port(), 4096)) {
            stalled.send("GET /produced HTTP/1.1\r\nHost: a\r\n\r\n");
            // Nothing is read: once output is pending, the producer must wait for the socket.
            Await.until(() -> server.metrics().lentBytes > 0, () -> "no output pending: " + server.metrics());
            // A request on another connection of the same (single) loop: when it is answered, any
            // pulling the loop would do without backpressure has happened.
            try (RawClient other = new RawClient(server.port())) {
                other.send("GET /fast HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(other.read().wire().startsWith("HTTP/1.1 200 "));
            }
            long soFar = produced.get();
            assertTrue(soFar <= 16L << 20, "pulled " + soFar + " bytes for a client that reads none");
        }
    }

    @Test
    void failureAfterTheStreamBeganTruncatesAndCloses() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/half", Handlers.blocking((req, res) -> {
                    OutputStream out = res.outputStream();
                    out.write("first part".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    throw new IllegalStateException("expected by the test");
                }))
                .get("/early", Handlers.blocking((req, res) -> {
                    res.outputStream().write("buffered, never sent".getBytes(StandardCharsets.US_ASCII));
                    throw new IllegalStateException("expected by the test");
                }))
                .start()) {
            try (RawClient c = new RawClient(server.port())) {
                c.send("GET /half HTTP/1.1\r\nHost: a\r\n\r\nGET /half HTTP/1.1\r\nHost: a\r\n\r\n");
                String all = c.readToEnd();
                assertTrue(all.startsWith("HTTP/1.1 200 OK\r\n"), all);
                assertTrue(all.contains("Transfer-Encoding: chunked\r\n"), all);
                assertTrue(all.endsWith("a\r\nfirst part\r\n"), "truncated after the first chunk: " + all);
                assertEquals(all.indexOf("HTTP/1.1"), all.lastIndexOf("HTTP/1.1"), "one status line only");
            }
            try (RawClient c = new RawClient(server.port())) {
                c.send("GET /early HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(c.read().wire().startsWith("HTTP/1.1 500 "));
            }
        }
    }

    @Test
    void writerBlockedOnAGoneClientGetsAnIOException() throws Exception {
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        CountDownLatch started = new CountDownLatch(1);
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/endless", Handlers.blocking((req, res) -> {
                    byte[] block = new byte[64 * 1024];
                    OutputStream out = res.outputStream();
                    try {
                        while (true) {
                            out.write(block);
                            out.flush();
                            started.countDown();
                        }
                    } catch (IOException e) {
                        outcome.complete(e);
                    } catch (Throwable t) {
                        outcome.complete(t);
                    }
                }))
                .get("/fast", (req, res) -> res.text("fast"))
                .start()) {
            try (RawClient c = new RawClient(server.port())) {
                c.send("GET /endless HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(started.await(30, TimeUnit.SECONDS));
                c.input().readNBytes(100_000); // some of it, then the client goes away without reading the rest
            }
            Throwable t = outcome.get(60, TimeUnit.SECONDS);
            assertTrue(t instanceof IOException, String.valueOf(t));
            try (RawClient c = new RawClient(server.port())) {
                c.send("GET /fast HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(c.read().wire().endsWith("fast"));
            }
        }
    }

    @Test
    void streamToHttp10IsUnframedAndCloses() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/s", Handlers.blocking((req, res) -> {
                    try (OutputStream out = res.outputStream()) {
                        out.write("hello ".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        out.write("world".getBytes(StandardCharsets.US_ASCII));
                    }
                }))
                .start();
             RawClient c = new RawClient(server.port())) {
            c.send("GET /s HTTP/1.0\r\n\r\n");
            String all = c.readToEnd();
            assertFalse(all.contains("Transfer-Encoding"), all);
            assertTrue(all.contains("Connection: close\r\n"), all);
            assertTrue(all.endsWith("\r\n\r\nhello world"), all);
        }
    }

    @Test
    void sendFileOfSixtyFourMibIsByteExact(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("big.bin");
        byte[] block = new byte[1 << 20];
        Random random = new Random(42);
        MessageDigest expected = MessageDigest.getInstance("SHA-256");
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int i = 0; i < 64; i++) {
                random.nextBytes(block);
                expected.update(block);
                out.write(block);
            }
        }
        String want = HexFormat.of().formatHex(expected.digest());
        try (Server server = Server.builder().transport(transport).port(0).threads(1)
                .get("/inline", (req, res) -> res.contentType("application/octet-stream").sendFile(file))
                .get("/blocking", Handlers.blocking((req, res) -> res.sendFile(file)))
                .get("/small", (req, res) -> res.text("small"))
                .start()) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(); // chunked framing is HTTP/1.1's
            for (String path : new String[] {"/inline", "/blocking", "/inline"}) {
                HttpResponse<InputStream> r = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + path)).build(), HttpResponse.BodyHandlers.ofInputStream());
                assertEquals(200, r.statusCode());
                assertEquals(String.valueOf(64 << 20), r.headers().firstValue("Content-Length").orElse(""));
                MessageDigest got = MessageDigest.getInstance("SHA-256");
                try (InputStream in = r.body()) {
                    byte[] buf = new byte[256 * 1024];
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                        got.update(buf, 0, n);
                    }
                }
                assertEquals(want, HexFormat.of().formatHex(got.digest()), path);
            }
            // Pipelined behind a file: answered after it, in order; HEAD gets the length and no body.
            Path small = dir.resolve("small.txt");
            Files.writeString(small, "0123456789");
            try (Server s2 = Server.builder().transport(transport).port(0).threads(1)
                    .get("/f", (req, res) -> res.sendFile(small))
                    .get("/small", (req, res) -> res.text("small"))
                    .start();
                 RawClient c = new RawClient(s2.port())) {
                c.send("GET /f HTTP/1.1\r\nHost: a\r\n\r\nHEAD /f HTTP/1.1\r\nHost: a\r\n\r\nGET /small HTTP/1.1\r\nHost: a\r\n\r\n");
                assertTrue(c.read().wire().endsWith("\r\n\r\n0123456789"));
                byte[] headOnly = c.input().readNBytes(20);
                String rest = new String(headOnly, StandardCharsets.ISO_8859_1);
                assertTrue(rest.startsWith("HTTP/1.1 200 OK\r\n"), rest);
                String headResponse = rest + c.readHead();
                assertTrue(headResponse.contains("Content-Length: 10\r\n"), headResponse);
                assertTrue(c.read().wire().endsWith("small"));
            }
        }
    }

    private static long directMemoryUsed() {
        for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b.getMemoryUsed();
            }
        }
        return 0;
    }
}
