package dev.peregrine.web;

import dev.peregrine.Compression;
import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.Curl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Response compression over real sockets on NIO and epoll: streamed bodies ({@code res.stream},
 * {@code res.outputStream}) compressed chunk by chunk, each chunk decodable as it arrives (a raw
 * socket decodes them one at a time while the handler waits for it), every coding through curl
 * {@code --compressed}, and gzip through the JDK client.
 */
@Timeout(120)
class CompressionTransportsTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String TEXT = "compressed as it is produced; ".repeat(40);
    private static final int TICKS = 5;

    private final BlockingQueue<Boolean> go = new LinkedBlockingQueue<>();
    private Server server;

    private Server start(String transport) {
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .compression(Compression.defaults())
                .get("/ticks", Execution.BLOCKING, (req, res) -> {
                    res.contentType("text/plain");
                    try (OutputStream out = res.outputStream()) {
                        for (int i = 0; i < TICKS; i++) {
                            out.write(tick(i).getBytes(StandardCharsets.UTF_8));
                            out.flush();
                            if (i < TICKS - 1 && go.poll(20, TimeUnit.SECONDS) == null) {
                                throw new IllegalStateException("the test never read tick " + i);
                            }
                        }
                    }
                })
                .get("/produced", (req, res) -> {
                    int[] n = {0};
                    res.contentType("application/json").stream(dst -> {
                        dst.put(tick(n[0]).getBytes(StandardCharsets.UTF_8));
                        return ++n[0] < TICKS;
                    });
                })
                .get("/whole", (req, res) -> res.text(TEXT))
                .post("/gz", dev.peregrine.RequestDecoding.gzip(1 << 20, (req, res) -> res.text(req.bodyLength() + " " + sha(req.bodyBytes()))))
                .post("/raw", (req, res) -> res.text(req.bodyLength() + " " + sha(req.bodyBytes())))
                .start();
        return server;
    }

    private static String tick(int i) {
        return "tick " + i + ": " + TEXT;
    }

    private static String allTicks() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < TICKS; i++) {
            b.append(tick(i));
        }
        return b.toString();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aRawSocketDecodesEachChunkWhileTheHandlerWaits(String transport) throws Exception {
        start(transport);
        try (RawClient c = new RawClient(server.port())) {
            String head = c.send("GET /ticks HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n").readHead();
            assertTrue(head.contains("\r\nContent-Encoding: gzip\r\n"), head);
            assertTrue(head.contains("\r\nTransfer-Encoding: chunked\r\n"), head);
            assertTrue(head.contains("\r\nVary: Accept-Encoding\r\n"), head);
            Inflater inflater = new Inflater(true);
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            for (int i = 0; i < TICKS; i++) {
                byte[] chunk = c.readChunk();
                wire.write(chunk);
                int skip = i == 0 ? 10 : 0; // the gzip header rides in the first chunk
                inflater.setInput(chunk, skip, chunk.length - skip);
                byte[] buf = new byte[64 * 1024];
                int n = inflater.inflate(buf);
                assertEquals(tick(i), new String(buf, 0, n, StandardCharsets.UTF_8), "tick " + i + " decodes from its own chunk");
                go.put(Boolean.TRUE);
            }
            byte[] chunk;
            while ((chunk = c.readChunk()).length > 0) { // the gzip trailer, then the last chunk
                wire.write(chunk);
            }
            assertEquals(allTicks(), new String(new GZIPInputStream(new ByteArrayInputStream(wire.toByteArray())).readAllBytes(),
                    StandardCharsets.UTF_8), "CRC and length check out");
            assertEquals("\r\n", new String(c.readExactly(2), StandardCharsets.US_ASCII));
            // the connection stays usable
            assertTrue(c.send("GET /whole HTTP/1.1\r\nHost: x\r\n\r\n").readHead().startsWith("HTTP/1.1 200"));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void curlDecodesEveryCoding(String transport) throws Exception {
        start(transport);
        String base = "http://127.0.0.1:" + server.port();
        for (String coding : new String[] {"gzip", "deflate", "br", "zstd"}) {
            for (String path : new String[] {"/produced", "/whole"}) {
                String out = Curl.run("-s", "--compressed", "-H", "Accept-Encoding: " + coding, "-w", "\n%header{content-encoding}", base + path);
                String expected = path.equals("/whole") ? TEXT : allTicks();
                assertEquals(expected + "\n" + coding, out, coding + " " + path);
            }
        }
        assertEquals(TEXT, Curl.run("-s", base + "/whole"), "nothing asked, nothing encoded");
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void theJdkClientGetsGzipStreams(String transport) throws Exception {
        start(transport);
        for (String path : new String[] {"/produced", "/ticks"}) {
            if (path.equals("/ticks")) {
                for (int i = 0; i < TICKS - 1; i++) {
                    go.put(Boolean.TRUE); // this client reads the body whole
                }
            }
            HttpResponse<byte[]> r = CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                    .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, r.statusCode());
            assertEquals("gzip", r.headers().firstValue("Content-Encoding").orElse(null));
            assertEquals(allTicks(), new String(new GZIPInputStream(new ByteArrayInputStream(r.body())).readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static String sha(byte[] b) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(b));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void gzipRequestBodiesOnlyWhereOptedIn(String transport, @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        start(transport);
        String base = "http://127.0.0.1:" + server.port();
        byte[] data = allTicks().getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(z)) {
            out.write(data);
        }
        java.nio.file.Path file = dir.resolve("body.gz");
        java.nio.file.Files.write(file, z.toByteArray());
        String gz = "Content-Encoding: gzip";
        assertEquals(data.length + " " + sha(data), Curl.run("-s", "--data-binary", "@" + file, "-H", gz, base + "/gz"));
        assertEquals(z.size() + " " + sha(z.toByteArray()), Curl.run("-s", "--data-binary", "@" + file, "-H", gz, base + "/raw"),
                "no opt-in: left as sent");
        HttpResponse<String> jdk = CLIENT.send(HttpRequest.newBuilder(URI.create(base + "/gz")).header("Content-Encoding", "gzip")
                .POST(HttpRequest.BodyPublishers.ofByteArray(z.toByteArray())).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(data.length + " " + sha(data), jdk.body());
        // a bomb: 8 MiB of zeros in a few KiB, over the 1 MiB cap
        ByteArrayOutputStream bomb = new ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(bomb)) {
            out.write(new byte[8 << 20]);
        }
        java.nio.file.Path bombFile = dir.resolve("bomb.gz");
        java.nio.file.Files.write(bombFile, bomb.toByteArray());
        assertEquals("413", Curl.run("-s", "-o", "/dev/null", "-w", "%{http_code}", "--data-binary", "@" + bombFile, "-H", gz, base + "/gz"));
        try (RawClient c = new RawClient(server.port())) {
            byte[] corrupt = Arrays.copyOf(z.toByteArray(), z.size() - 5);
            c.send("POST /gz HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: " + corrupt.length + "\r\n\r\n");
            c.send(corrupt);
            assertTrue(c.readHead().startsWith("HTTP/1.1 400"));
        }
    }
}
