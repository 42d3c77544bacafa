package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** Response compression through the real server code ({@link TestClient}): which responses, which coding. */
class CompressionTest {
    private static final String TEXT = "Peregrine compresses repetitive text. ".repeat(100);

    private static Server.Builder app() {
        return Server.builder().compression(Compression.defaults())
                .get("/text", (req, res) -> res.text(TEXT))
                .get("/bytes", (req, res) -> res.contentType("application/json").body(("{\"a\":\"" + TEXT + "\"}").getBytes(StandardCharsets.UTF_8)))
                .get("/small", (req, res) -> res.text("tiny"))
                .get("/png", (req, res) -> res.contentType("image/png").body(TEXT.getBytes(StandardCharsets.UTF_8)))
                .get("/empty", (req, res) -> res.status(204))
                .get("/blocking", Execution.BLOCKING, (req, res) -> res.text(TEXT))
                .get("/produced", (req, res) -> {
                    int[] left = {5};
                    res.contentType("text/plain").stream(dst -> {
                        dst.put(("piece " + left[0] + " " + TEXT).getBytes(StandardCharsets.UTF_8));
                        return --left[0] > 0;
                    });
                })
                .get("/written", Execution.BLOCKING, (req, res) -> {
                    res.contentType("application/json");
                    try (java.io.OutputStream out = res.outputStream()) {
                        for (int i = 0; i < 4; i++) {
                            out.write(("[" + i + "," + TEXT.repeat(20) + "]").getBytes(StandardCharsets.UTF_8));
                            out.flush();
                        }
                    }
                })
                .get("/produced-png", (req, res) -> {
                    res.contentType("image/png").stream(dst -> {
                        dst.put(TEXT.getBytes(StandardCharsets.UTF_8));
                        return false;
                    });
                });
    }

    private static String expectedProduced() {
        StringBuilder b = new StringBuilder();
        for (int i = 5; i > 0; i--) {
            b.append("piece ").append(i).append(' ').append(TEXT);
        }
        return b.toString();
    }

    private static String expectedWritten() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            b.append('[').append(i).append(',').append(TEXT.repeat(20)).append(']');
        }
        return b.toString();
    }

    private static String decode(TestClient.Response r) throws Exception {
        dev.peregrine.compress.Coding c = dev.peregrine.compress.Coding.of(r.header("Content-Encoding"));
        return new String(dev.peregrine.compress.engine.StreamDecoderAccess.decode(c, r.body()), StandardCharsets.UTF_8);
    }

    @Test
    void brAndZstdWhenTheirLibrariesAreHereAndPreferredOnATie() throws Exception {
        try (TestClient c = TestClient.of(app())) {
            TestClient.Response br = c.request("GET", "/text", null, "Accept-Encoding", "gzip, deflate, br, zstd");
            assertEquals("br", br.header("Content-Encoding"), "the server's order breaks a tie: br first");
            assertEquals(TEXT, decode(br));
            TestClient.Response zstd = c.request("GET", "/bytes", null, "Accept-Encoding", "br;q=0.5, zstd");
            assertEquals("zstd", zstd.header("Content-Encoding"));
            assertEquals("{\"a\":\"" + TEXT + "\"}", decode(zstd));
            assertEquals("gzip", c.request("GET", "/text", null, "Accept-Encoding", "br;q=0, zstd;q=0, gzip").header("Content-Encoding"));
            assertEquals("br", c.request("GET", "/text", null, "Accept-Encoding", "gzip;q=0.5, *").header("Content-Encoding"),
                    "* at q=1 beats gzip at 0.5");
        }
        try (TestClient c = TestClient.of(app().compression(Compression.builder().codings("gzip", "zstd").build()))) {
            assertEquals("gzip", c.request("GET", "/text", null, "Accept-Encoding", "br, zstd, gzip").header("Content-Encoding"));
            assertEquals("zstd", c.request("GET", "/text", null, "Accept-Encoding", "br, zstd").header("Content-Encoding"));
            assertNull(c.request("GET", "/text", null, "Accept-Encoding", "br").header("Content-Encoding"));
        }
    }

    @Test
    void streamedBodiesAreCompressedChunkByChunk() throws Exception {
        for (String coding : new String[] {"gzip", "deflate", "br", "zstd"}) {
            try (TestClient c = TestClient.of(app())) {
                TestClient.Response p = c.request("GET", "/produced", null, "Accept-Encoding", coding);
                assertEquals(coding, p.header("Content-Encoding"));
                assertEquals("chunked", p.header("Transfer-Encoding"));
                assertEquals("Accept-Encoding", p.header("Vary"));
                assertEquals(expectedProduced(), decode(p));
                TestClient.Response w = c.request("GET", "/written", null, "Accept-Encoding", coding);
                assertEquals(coding, w.header("Content-Encoding"));
                assertEquals(expectedWritten(), decode(w));
            }
        }
        try (TestClient c = TestClient.of(app())) {
            TestClient.Response plain = c.get("/produced");
            assertNull(plain.header("Content-Encoding"));
            assertEquals(expectedProduced(), plain.text());
            assertNull(c.request("GET", "/produced-png", null, "Accept-Encoding", "gzip").header("Content-Encoding"));
            TestClient.Response head = c.request("HEAD", "/produced", null, "Accept-Encoding", "gzip");
            assertNull(head.header("Content-Encoding"));
        }
    }

    @Test
    void unavailableOrUnknownCodingsAreRefusedAtTheCall() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Compression.builder().codings("lzma"));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Compression.builder().codings());
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Compression.builder().brotliQuality(12));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Compression.builder().zstdLevel(0));
        assertEquals(java.util.List.of(dev.peregrine.compress.Coding.BR, dev.peregrine.compress.Coding.ZSTD,
                dev.peregrine.compress.Coding.GZIP, dev.peregrine.compress.Coding.DEFLATE), Compression.defaults().codings());
    }

    @Test
    void gzipAndDeflateAsTheClientAsks() throws Exception {
        try (TestClient c = TestClient.of(app())) {
            TestClient.Response gz = c.request("GET", "/text", null, "Accept-Encoding", "deflate;q=0.5, gzip");
            assertEquals("gzip", gz.header("Content-Encoding"));
            assertEquals("Accept-Encoding", gz.header("Vary"));
            assertEquals(TEXT, new String(new GZIPInputStream(new ByteArrayInputStream(gz.body())).readAllBytes(), StandardCharsets.UTF_8));
            TestClient.Response df = c.request("GET", "/bytes", null, "Accept-Encoding", "gzip;q=0.1, deflate");
            assertEquals("deflate", df.header("Content-Encoding"));
            assertEquals("{\"a\":\"" + TEXT + "\"}", new String(new InflaterInputStream(new ByteArrayInputStream(df.body())).readAllBytes(), StandardCharsets.UTF_8));
            TestClient.Response off = c.request("GET", "/blocking", null, "Accept-Encoding", "gzip");
            assertEquals("gzip", off.header("Content-Encoding"), "handlers off the loop too");
            assertEquals(TEXT, new String(new GZIPInputStream(new ByteArrayInputStream(off.body())).readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void notWhenRefusedSmallAlreadyCompressedHeadOrBodiless() {
        try (TestClient c = TestClient.of(app())) {
            assertNull(c.get("/text").header("Content-Encoding"), "no Accept-Encoding");
            assertEquals("Accept-Encoding", c.get("/text").header("Vary"));
            assertNull(c.request("GET", "/text", null, "Accept-Encoding", "gzip;q=0, deflate;q=0").header("Content-Encoding"));
            assertNull(c.request("GET", "/text", null, "Accept-Encoding", "*;q=0").header("Content-Encoding"));
            assertEquals("gzip", c.request("GET", "/text", null, "Accept-Encoding", "*").header("Content-Encoding"));
            TestClient.Response small = c.request("GET", "/small", null, "Accept-Encoding", "gzip");
            assertNull(small.header("Content-Encoding"));
            assertNull(small.header("Vary"), "under minSize it is never compressed: the answer does not vary");
            assertNull(c.request("GET", "/png", null, "Accept-Encoding", "gzip").header("Content-Encoding"));
            assertEquals(204, c.request("GET", "/empty", null, "Accept-Encoding", "gzip").status());
            TestClient.Response head = c.request("HEAD", "/text", null, "Accept-Encoding", "gzip");
            assertNull(head.header("Content-Encoding"));
            assertEquals(String.valueOf(TEXT.length()), head.header("Content-Length"));
        }
    }

    /**
     * The server decides at the call whether a response may be compressed at all (the body against
     * {@code minSize}, a response sent as is): one byte under {@code minSize} is neither compressed nor
     * marked Vary, {@code minSize} bytes are compressed (from bytes, a heap buffer and text), and a
     * large body sent as is is neither, on keep-alive requests in a row.
     */
    @Test
    void minSizeAndSentAsIsAreDecidedPerResponse() throws Exception {
        int min = 200;
        byte[] under = "u".repeat(min - 1).getBytes(StandardCharsets.US_ASCII);
        byte[] at = "a".repeat(min).getBytes(StandardCharsets.US_ASCII);
        Server.Builder app = Server.builder().compression(Compression.builder().minSize(min).build())
                .get("/under", (req, res) -> res.contentType("text/plain").body(under))
                .get("/at", (req, res) -> res.contentType("text/plain").body(at))
                .get("/at-buffer", (req, res) -> res.contentType("text/plain").body(java.nio.ByteBuffer.wrap(at)))
                .get("/at-text", (req, res) -> res.text("a".repeat(min)))
                .get("/as-is", (req, res) -> {
                    res.contentType("text/plain").body(TEXT.getBytes(StandardCharsets.UTF_8));
                    ((dev.peregrine.exchange.ResponseView) res).sendAsIs(); // as the static files send theirs
                });
        try (TestClient c = TestClient.of(app)) {
            for (int round = 0; round < 2; round++) {
                TestClient.Response u = c.request("GET", "/under", null, "Accept-Encoding", "gzip");
                assertNull(u.header("Content-Encoding"));
                assertNull(u.header("Vary"));
                assertEquals(new String(under, StandardCharsets.US_ASCII), new String(u.body(), StandardCharsets.US_ASCII));
                for (String path : new String[] {"/at", "/at-buffer", "/at-text"}) {
                    TestClient.Response a = c.request("GET", path, null, "Accept-Encoding", "gzip");
                    assertEquals("gzip", a.header("Content-Encoding"), path);
                    assertEquals("Accept-Encoding", a.header("Vary"), path);
                    assertEquals(new String(at, StandardCharsets.US_ASCII), decode(a), path);
                }
                TestClient.Response asIs = c.request("GET", "/as-is", null, "Accept-Encoding", "gzip");
                assertNull(asIs.header("Content-Encoding"));
                assertNull(asIs.header("Vary"));
                assertEquals(TEXT, new String(asIs.body(), StandardCharsets.UTF_8));
            }
        }
    }
}
