package dev.peregrine.files;

import dev.peregrine.StaticOptions;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code multipart/byteranges} read back part by part on both transports, from each of the three
 * places a file's bytes can come from: a file opened per response (no cache), the cache's shared
 * channel, and a small cached file's bytes in memory. Bodies are compared with the file byte for byte.
 */
class MultipartRangesTest {
    @TempDir
    Path dir;
    private byte[] big;
    private byte[] small;
    private Server server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(20)).build();

    @BeforeEach
    void files() throws IOException {
        Random random = new Random(24);
        big = new byte[10 << 20];
        random.nextBytes(big);
        small = new byte[5_000];
        random.nextBytes(small);
        Files.write(dir.resolve("big.bin"), big);
        Files.write(dir.resolve("small.bin"), small);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
            Await.until("every pooled buffer back", () -> server.metrics().lentBuffers == 0);
        }
    }

    private HttpResponse<byte[]> get(String path, String range) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Range", range).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private void start(String transport, int cachedFiles) {
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .staticFiles("/static", dir, StaticOptions.builder().openFileCache(cachedFiles).build())
                .start();
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void largeRangesFromTheCachedChannelAndFromAFileOpenedPerResponse(String transport) throws Exception {
        for (int cached : new int[] {16, 0}) {
            start(transport, cached);
            for (int round = 0; round < 2; round++) { // the second: a cache hit
                HttpResponse<byte[]> r = get("/static/big.bin", "bytes=0-4194303,4194304-8388606");
                assertEquals(206, r.statusCode());
                ByteRangesBody.assertRanges(big, r.headers().firstValue("Content-Type").orElseThrow(), r.body(),
                        new long[] {0, 4194303}, new long[] {4194304, 8388606});
                assertEquals(String.valueOf(r.body().length), r.headers().firstValue("Content-Length").orElseThrow());
            }
            HttpResponse<byte[]> odd = get("/static/big.bin", "bytes=7-7, 100000-199999,-3,5000000-5000001");
            assertEquals(206, odd.statusCode());
            ByteRangesBody.assertRanges(big, odd.headers().firstValue("Content-Type").orElseThrow(), odd.body(),
                    new long[] {7, 7}, new long[] {100_000, 199_999}, new long[] {big.length - 3, big.length - 1},
                    new long[] {5_000_000, 5_000_001});
            assertTrue(server.metrics().sendfileBytes > 16_000_000, "the ranges went by sendfile: " + server.metrics());
            server.close();
            server = null;
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aSmallCachedFileIsAnsweredFromItsBytes(String transport) throws Exception {
        start(transport, 16);
        for (int round = 0; round < 2; round++) {
            HttpResponse<byte[]> r = get("/static/small.bin", "bytes=0-0,10-19,4990-");
            assertEquals(206, r.statusCode());
            ByteRangesBody.assertRanges(small, r.headers().firstValue("Content-Type").orElseThrow(), r.body(),
                    new long[] {0, 0}, new long[] {10, 19}, new long[] {4990, 4999});
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aRawClientSeesExactFramingAndTheConnectionStaysUsable(String transport) throws Exception {
        start(transport, 16);
        try (RawClient c = new RawClient(server.port())) {
            c.send("GET /static/big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1-2,3000000-3999999\r\n\r\n"
                    + "GET /static/big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1-2,3000000-3999999\r\n\r\n"
                    + "HEAD /static/big.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=1-2,3000000-3999999\r\n\r\n");
            for (int i = 0; i < 2; i++) {
                RawResponse r = c.read();
                assertEquals(206, r.status);
                ByteRangesBody.assertRanges(big, r.headers.get("content-type").get(0), r.body,
                        new long[] {1, 2}, new long[] {3_000_000, 3_999_999});
            }
            RawResponse head = c.read(true);
            assertEquals(200, head.status, "HEAD: ranges apply to GET only (RFC 9110 §14.2)");
        }
    }
}
