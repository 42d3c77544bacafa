package dev.peregrine.e2e;

import dev.peregrine.Compression;
import dev.peregrine.Metrics;
import dev.peregrine.Server;
import dev.peregrine.StaticOptions;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files sent zero-copy ({@code sendfile(2)}: the JDK's {@code transferTo} on NIO, Netty's call on epoll,
 * the same call on io_uring's sockets after the ring's sends before it completed)
 * over real sockets: byte-exact with the JDK client and curl, from cached and uncached files and from an
 * offset; a reader that stops until the socket is full and then reads on (edge-triggered writability on
 * epoll), one that never reads (the write timeout closes it), one that closes mid-file (its file and
 * buffers are released); small cached files instead leave from memory with their head. {@link Metrics#sendfileBytes} proves the bytes did not pass through the loop's
 * buffers.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class SendfileTest extends ServerTestBase {
    /** Far beyond loopback's socket buffers on both ends: the sending must stop and resume. */
    private static final int BIG = 24 << 20;

    @TempDir
    Path dir;
    private byte[] big;

    SendfileTest(ServerFactory factory) {
        super(factory);
    }

    /** File bytes that left by sendfile. */
    private long fileBytesOut() {
        return server.metrics().sendfileBytes;
    }

    /** The file bytes counted once the loop has sent {@code expected} of them by sendfile. */
    private void awaitFileBytes(long expected, String what) {
        Await.until(() -> server.metrics().sendfileBytes == expected, () -> what + ": " + server.metrics());
    }

    private void serve(StaticOptions options, Duration writeTimeout) throws IOException {
        Path root = Files.createDirectories(dir.resolve("public"));
        big = new byte[BIG];
        new Random(7).nextBytes(big);
        Files.write(root.resolve("big.bin"), big);
        server.close();
        server = factory.start(b -> b.writeTimeout(writeTimeout).staticFiles("/static", root, options)
                .get("/file", (req, res) -> res.sendFile(root.resolve("big.bin"))));
    }

    private static String request(String path, String... headers) {
        StringBuilder b = new StringBuilder("GET ").append(path).append(" HTTP/1.1\r\nHost: x\r\n");
        for (String h : headers) {
            b.append(h).append("\r\n");
        }
        return b.append("\r\n").toString();
    }

    @Test
    void largeFilesAreByteExactAndLeaveByTheKernel() throws Exception {
        serve(StaticOptions.defaults(), Duration.ofSeconds(30));
        for (String path : List.of("/static/big.bin", "/static/big.bin", "/file")) { // cached twice, then uncached
            HttpResponse<byte[]> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, r.statusCode(), path);
            assertArrayEquals(big, r.body(), path);
        }
        HttpResponse<byte[]> range = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/static/big.bin")))
                .header("Range", "bytes=5000001-20000000").timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(206, range.statusCode());
        assertArrayEquals(Arrays.copyOfRange(big, 5_000_001, 20_000_001), range.body(), "sendfile from an offset");

        Path out = dir.resolve("curl.out");
        Process curl = new ProcessBuilder("curl", "-sS", "--max-time", "60", "-r", "1-16777216", "-o", out.toString(),
                url("/static/big.bin")).redirectErrorStream(true).start();
        String curlSays = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(curl.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, curl.exitValue(), curlSays);
        assertArrayEquals(Arrays.copyOfRange(big, 1, 16_777_217), Files.readAllBytes(out));

        long sent = 3L * BIG + 15_000_000 + 16_777_216;
        // The loop counts after the kernel took the bytes, which the client may have read by then.
        awaitFileBytes(sent, "every file byte goes out by sendfile");
        Metrics m = server.metrics();
        assertTrue(m.bytesOut > sent, m.toString());
    }

    @Test
    void smallCachedFilesLeaveFromMemoryAsTheyAreOnDisk() throws Exception {
        Path root = Files.createDirectories(dir.resolve("public"));
        byte[] small = new byte[16 << 10]; // OpenFileCache.IN_MEMORY_MAX
        new Random(3).nextBytes(small);
        Files.write(root.resolve("small.txt"), small);
        byte[] larger = Arrays.copyOf(small, small.length + 1);
        Files.write(root.resolve("larger.bin"), larger);
        server.close();
        server = factory.start(b -> b.compression(Compression.builder().minSize(1).build())
                .staticFiles("/static", root, StaticOptions.defaults()));
        for (int i = 0; i < 3; i++) { // opened (and read) by the first, then from memory
            HttpResponse<byte[]> r = get("/static/small.txt", "Accept-Encoding", "gzip");
            assertEquals(200, r.statusCode());
            assertArrayEquals(small, r.body());
            assertTrue(r.headers().firstValue("Content-Encoding").isEmpty(), "a file's bytes are never coded on the fly: its ETag names them");
            assertEquals("text/plain; charset=utf-8", r.headers().firstValue("Content-Type").orElseThrow());
        }
        HttpResponse<byte[]> range = get("/static/small.txt", "Range", "bytes=100-1099");
        assertEquals(206, range.statusCode());
        assertEquals("bytes 100-1099/16384", range.headers().firstValue("Content-Range").orElseThrow());
        assertArrayEquals(Arrays.copyOfRange(small, 100, 1100), range.body());
        RawResponse head;
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("HEAD /static/small.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
            head = RawResponse.read(s.getInputStream(), true);
        }
        assertEquals("16384", head.header("Content-Length"));
        String etag = range.headers().firstValue("ETag").orElseThrow();
        assertEquals(304, get("/static/small.txt", "If-None-Match", etag).statusCode());

        byte[] changed = Arrays.copyOf(small, 1000);
        changed[0] ^= 1;
        Files.write(root.resolve("small.txt"), changed);
        Files.setLastModifiedTime(root.resolve("small.txt"), FileTime.fromMillis(1_000_000_000_000L));
        assertArrayEquals(changed, get("/static/small.txt").body(), "a changed file is read again");

        assertArrayEquals(larger, get("/static/larger.bin", "Accept-Encoding", "gzip").body());
        Await.until(() -> server.metrics().sendfileBytes == larger.length,
                () -> "only the larger file leaves by sendfile: " + server.metrics());
    }

    private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void aReaderThatStopsIsResumedWhenItReadsAgainAndTheConnectionCarriesOn() throws Exception {
        serve(StaticOptions.defaults(), Duration.ofSeconds(30));
        try (Socket s = smallWindow()) {
            // Two requests pipelined: the second is answered only after the whole first body has left.
            s.getOutputStream().write(RawClient.bytes(request("/static/big.bin") + request("/plaintext")));
            // The reader takes nothing until the server has sent what the socket buffers hold and stopped.
            long[] last = {-1, 0}; // the count seen, and for how many polls in a row
            Await.until(() -> {
                long now = fileBytesOut();
                last[1] = now > 0 && now == last[0] ? last[1] + 1 : 0;
                last[0] = now;
                return last[1] >= 20;
            }, () -> "sending did not start and stop: " + server.metrics());
            assertTrue(fileBytesOut() < BIG, "the socket cannot hold the whole file");
            InputStream in = s.getInputStream();
            RawResponse file = RawResponse.read(in, false);
            assertEquals(200, file.status);
            assertArrayEquals(big, file.body);
            RawResponse next = RawResponse.read(in, false);
            assertEquals("Hello, World!", next.text());
        }
        awaitFileBytes(BIG, "sendfile");
    }

    @Test
    void aReaderThatNeverReadsIsClosedByTheWriteTimeout() throws Exception {
        serve(StaticOptions.defaults(), Duration.ofMillis(500));
        try (Socket s = smallWindow()) {
            s.getOutputStream().write(RawClient.bytes(request("/static/big.bin")));
            Await.until(() -> server.metrics().writeTimeouts == 1, () -> "no write timeout: " + server.metrics());
            Await.until(() -> server.metrics().open == 0, () -> "still open: " + server.metrics());
        }
        assertTrue(fileBytesOut() < BIG);
    }

    @Test
    void aClientClosingMidFileReleasesTheFileAndTheBuffers() throws Exception {
        serve(StaticOptions.builder().openFileCache(0).build(), Duration.ofSeconds(30)); // a descriptor per response
        long before = openDescriptors();
        for (int i = 0; i < 4; i++) {
            try (Socket s = smallWindow()) {
                s.setSoLinger(true, 0); // closes with RST while the server is mid-file
                s.getOutputStream().write(RawClient.bytes(request(i % 2 == 0 ? "/static/big.bin" : "/file")));
                InputStream in = s.getInputStream();
                byte[] some = new byte[100_000];
                int got = 0;
                while (got < some.length) {
                    int n = in.read(some, got, some.length - got);
                    assertTrue(n > 0);
                    got += n;
                }
                assertTrue(new String(some, 0, 15, StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200"));
            }
        }
        Await.until(() -> server.metrics().open == 0, () -> "still open: " + server.metrics());
        Await.until(() -> openDescriptors() <= before, () -> "descriptors: " + openDescriptors() + " > " + before);
        awaitNoLentBuffers(server);
        assertTrue(fileBytesOut() < 4L * BIG);
    }

    /** A connected socket with a small receive buffer (set before connecting, so the window is small). */
    private Socket smallWindow() throws IOException {
        Socket s = new Socket();
        s.setReceiveBufferSize(16 << 10);
        s.setSoTimeout(RawClient.READ_TIMEOUT_MS);
        s.connect(new InetSocketAddress("127.0.0.1", server.port()), RawClient.READ_TIMEOUT_MS);
        return s;
    }

    private static long openDescriptors() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
