package dev.peregrine.web;

import dev.peregrine.Server;
import dev.peregrine.StaticOptions;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.Curl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Server.Builder.staticFiles} over real sockets with the JDK client, curl and a raw socket:
 * index files, validators and preconditions, ranges, precompressed siblings, and no way out of the root.
 */
class StaticFilesTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    @TempDir
    Path dir;
    private Server server;
    private byte[] big;

    @BeforeEach
    void start() throws IOException {
        Path root = dir.resolve("public");
        Files.createDirectories(root.resolve("css"));
        Files.writeString(root.resolve("index.html"), "<h1>home</h1>");
        Files.writeString(root.resolve("css/site.css"), "body{}");
        big = new byte[100_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + i % 26);
        }
        Files.write(root.resolve("big.txt"), big);
        Files.writeString(root.resolve("app.js"), "console.log(1)".repeat(50));
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(("console.log(1)".repeat(50)).getBytes(StandardCharsets.UTF_8));
        }
        Files.write(root.resolve("app.js.gz"), gz.toByteArray());
        Files.writeString(root.resolve(".secret"), "hidden");
        Files.writeString(dir.resolve("outside.txt"), "outside");
        Files.createSymbolicLink(root.resolve("link-out.txt"), dir.resolve("outside.txt"));
        Files.writeString(root.resolve("data.wasm"), "wasm");
        server = Server.builder().host("127.0.0.1").port(0).threads(1)
                .staticFiles("/static", root, StaticOptions.builder().cacheControl("public, max-age=60")
                        .mediaType("wasm", "application/wasm").build())
                .start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    @Test
    void servesFilesIndexesAndTypes() throws Exception {
        HttpResponse<byte[]> css = get("/static/css/site.css");
        assertEquals(200, css.statusCode());
        assertEquals("body{}", text(css));
        assertTrue(css.headers().firstValue("Content-Type").orElse("").startsWith("text/css"));
        assertEquals("public, max-age=60", css.headers().firstValue("Cache-Control").orElse(null));
        assertEquals("bytes", css.headers().firstValue("Accept-Ranges").orElse(null));
        assertEquals("<h1>home</h1>", text(get("/static/")));
        assertEquals("application/wasm", get("/static/data.wasm").headers().firstValue("Content-Type").orElse(null));
        assertArrayEquals(big, get("/static/big.txt").body());
        HttpResponse<byte[]> redirect = get("/static");
        assertEquals(301, redirect.statusCode());
        assertEquals("/static/", redirect.headers().firstValue("Location").orElse(null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"/static/.secret", "/static/link-out.txt", "/static/nothing.txt", "/static/css/../../outside.txt",
            "/static/%2e%2e/outside.txt", "/static/css%2F..%2F..%2Foutside.txt", "/static/a%00b", "/static/..%5Coutside.txt"})
    void nothingOutsideTheRootNorHidden(String path) throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            String response = c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").readToEnd();
            assertTrue(response.startsWith("HTTP/1.1 404 ") || response.startsWith("HTTP/1.1 400 "), path + ": " + response);
            assertTrue(!response.contains("outside") && !response.contains("hidden"), response);
        }
    }

    @Test
    void validatorsGive304AndPreconditionsFail412() throws Exception {
        HttpResponse<byte[]> first = get("/static/css/site.css");
        String etag = first.headers().firstValue("ETag").orElseThrow();
        String lastModified = first.headers().firstValue("Last-Modified").orElseThrow();
        assertTrue(etag.startsWith("\"") && etag.endsWith("\""), etag);
        HttpResponse<byte[]> same = get("/static/css/site.css", "If-None-Match", "\"other\", " + etag);
        assertEquals(304, same.statusCode());
        assertEquals(0, same.body().length);
        assertEquals(etag, same.headers().firstValue("ETag").orElse(null));
        assertEquals(304, get("/static/css/site.css", "If-None-Match", "W/" + etag).statusCode(), "weak comparison");
        assertEquals(304, get("/static/css/site.css", "If-Modified-Since", lastModified).statusCode());
        assertEquals(200, get("/static/css/site.css", "If-Modified-Since", "Mon, 01 Jan 2001 00:00:00 GMT").statusCode());
        assertEquals(200, get("/static/css/site.css", "If-None-Match", "\"other\"", "If-Modified-Since", lastModified).statusCode(),
                "If-None-Match wins over If-Modified-Since");
        assertEquals(412, get("/static/css/site.css", "If-Match", "\"other\"").statusCode());
        assertEquals(200, get("/static/css/site.css", "If-Match", etag).statusCode());
        assertEquals(412, get("/static/css/site.css", "If-Unmodified-Since", "Mon, 01 Jan 2001 00:00:00 GMT").statusCode());
        assertEquals(200, get("/static/css/site.css", "If-Modified-Since", "not a date").statusCode(), "a bad date is ignored");
    }

    @Test
    void ranges() throws Exception {
        HttpResponse<byte[]> one = get("/static/big.txt", "Range", "bytes=10-19");
        assertEquals(206, one.statusCode());
        assertEquals("bytes 10-19/100000", one.headers().firstValue("Content-Range").orElse(null));
        assertEquals(new String(big, 10, 10, StandardCharsets.ISO_8859_1), text(one));
        assertEquals(new String(big, 99_990, 10, StandardCharsets.ISO_8859_1), text(get("/static/big.txt", "Range", "bytes=-10")));
        assertEquals(100_000 - 99_000, get("/static/big.txt", "Range", "bytes=99000-").body().length);
        HttpResponse<byte[]> none = get("/static/big.txt", "Range", "bytes=200000-");
        assertEquals(416, none.statusCode());
        assertEquals("bytes */100000", none.headers().firstValue("Content-Range").orElse(null));
        assertEquals(200, get("/static/big.txt", "Range", "bytes=oops").statusCode(), "malformed: ignored");
        assertEquals(200, get("/static/big.txt", "Range", "bytes=0-10,5-20").statusCode(), "overlapping: the whole file");
        StringBuilder many = new StringBuilder("bytes=");
        for (int i = 0; i < 40; i++) {
            many.append(i == 0 ? "" : ",").append(i * 100).append('-').append(i * 100 + 1);
        }
        assertEquals(200, get("/static/big.txt", "Range", many.toString()).statusCode(), "too many ranges: the whole file");
        HttpResponse<byte[]> multi = get("/static/big.txt", "Range", "bytes=0-1,10-11");
        assertEquals(206, multi.statusCode());
        String type = multi.headers().firstValue("Content-Type").orElse("");
        assertTrue(type.startsWith("multipart/byteranges; boundary="), type);
        String body = text(multi);
        assertTrue(body.contains("Content-Range: bytes 0-1/100000\r\n\r\nab") && body.contains("Content-Range: bytes 10-11/100000\r\n\r\nkl"), body);
        String etag = get("/static/big.txt").headers().firstValue("ETag").orElseThrow();
        assertEquals(206, get("/static/big.txt", "Range", "bytes=0-0", "If-Range", etag).statusCode());
        assertEquals(200, get("/static/big.txt", "Range", "bytes=0-0", "If-Range", "\"stale\"").statusCode());
    }

    @Test
    void precompressedSiblingsWhenAccepted() throws Exception {
        HttpResponse<byte[]> gz = get("/static/app.js", "Accept-Encoding", "br;q=0, gzip");
        assertEquals("gzip", gz.headers().firstValue("Content-Encoding").orElse(null));
        assertEquals("Accept-Encoding", gz.headers().firstValue("Vary").orElse(null));
        assertTrue(gz.headers().firstValue("Content-Type").orElse("").contains("javascript"));
        HttpResponse<byte[]> plain = get("/static/app.js", "Accept-Encoding", "gzip;q=0");
        assertNull(plain.headers().firstValue("Content-Encoding").orElse(null));
        assertEquals("console.log(1)".repeat(50), text(plain));
        assertNotNull(plain.headers().firstValue("ETag").orElse(null));
    }

    @Test
    void curlAgrees() throws Exception {
        String base = "http://127.0.0.1:" + server.port();
        assertEquals("body{}", Curl.run("-s", base + "/static/css/site.css"));
        assertEquals("klmno", Curl.run("-s", "-r", "10-14", base + "/static/big.txt"));
        assertEquals("console.log(1)".repeat(50), Curl.run("-s", "--compressed", base + "/static/app.js"));
        String head = Curl.run("-s", "-I", base + "/static/big.txt");
        assertTrue(head.startsWith("HTTP/1.1 200") && head.contains("Content-Length: 100000"), head);
    }
}
