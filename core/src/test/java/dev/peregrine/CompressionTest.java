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
                .get("/blocking", Execution.BLOCKING, (req, res) -> res.text(TEXT));
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
            assertNull(c.request("GET", "/small", null, "Accept-Encoding", "gzip").header("Content-Encoding"));
            assertNull(c.request("GET", "/png", null, "Accept-Encoding", "gzip").header("Content-Encoding"));
            assertEquals(204, c.request("GET", "/empty", null, "Accept-Encoding", "gzip").status());
            TestClient.Response head = c.request("HEAD", "/text", null, "Accept-Encoding", "gzip");
            assertNull(head.header("Content-Encoding"));
            assertEquals(String.valueOf(TEXT.length()), head.header("Content-Length"));
        }
    }
}
