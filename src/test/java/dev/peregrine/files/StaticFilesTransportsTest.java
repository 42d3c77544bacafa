package dev.peregrine.files;

import dev.peregrine.StaticOptions;

import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link StaticFiles} over real sockets on both transports (web/StaticFilesTest runs the default one):
 * validators, every precondition, If-Range, ranges at large offsets (sendfile from an offset), HEAD,
 * index files and traversal attempts; with the JDK HttpClient, raw sockets, curl and Python.
 */
class StaticFilesTransportsTest {
    @TempDir
    Path dir;
    private Path root;
    private byte[] data;
    private byte[] big;
    private Server server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(20)).build();

    @BeforeEach
    void files() throws IOException {
        root = Files.createDirectories(dir.resolve("public"));
        Random random = new Random(12);
        data = new byte[100_000];
        random.nextBytes(data);
        big = new byte[3 << 20];
        random.nextBytes(big);
        Files.write(root.resolve("data.bin"), data);
        Files.write(root.resolve("big.bin"), big);
        Files.writeString(root.resolve("a.txt"), "hello, static\n");
        Files.writeString(root.resolve("index.html"), "<p>root</p>");
        Files.createDirectories(root.resolve("sub"));
        Files.writeString(root.resolve("sub/index.html"), "<p>sub</p>");
        Files.createDirectories(root.resolve("noindex"));
        Files.writeString(root.resolve(".secret"), "hidden");
        Files.writeString(root.resolve("app.webmanifest"), "{}");
        Files.writeString(dir.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("escape.txt"), dir.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("inside.txt"), root.resolve("a.txt"));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private void start(String transport, StaticOptions options) {
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .staticFiles("/static", root, options)
                .start();
    }

    private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
        return send("GET", path, headers);
    }

    private HttpResponse<byte[]> send(String method, String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String h(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void filesCarryValidatorsAndPreconditionsFollowRfc9110(String transport) throws Exception {
        start(transport, StaticOptions.builder().cacheControl("public, max-age=60").build());
        HttpResponse<byte[]> r = get("/static/data.bin");
        assertEquals(200, r.statusCode());
        assertArrayEquals(data, r.body());
        assertEquals("application/octet-stream", h(r, "Content-Type"));
        assertEquals("bytes", h(r, "Accept-Ranges"));
        assertEquals("public, max-age=60", h(r, "Cache-Control"));
        String etag = h(r, "ETag");
        String lastModified = h(r, "Last-Modified");
        assertTrue(etag.matches("\"186a0-[0-9a-f]+\""), etag);
        assertEquals(Files.getLastModifiedTime(root.resolve("data.bin")).toMillis() / 1000,
                ZonedDateTime.parse(lastModified, DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond());

        HttpResponse<byte[]> notModified = get("/static/data.bin", "If-None-Match", etag);
        assertEquals(304, notModified.statusCode());
        assertEquals(0, notModified.body().length);
        assertEquals(etag, h(notModified, "ETag"));
        assertEquals("public, max-age=60", h(notModified, "Cache-Control"));
        // RFC 9110 §15.4.5: what a cache updates, no representation metadata (the ETag validates).
        assertNull(h(notModified, "Content-Type"));
        assertNull(h(notModified, "Last-Modified"));
        assertNull(h(notModified, "Accept-Ranges"));
        assertEquals("Accept-Encoding", h(notModified, "Vary"));
        assertEquals(304, get("/static/data.bin", "If-None-Match", "W/" + etag).statusCode());
        assertEquals(304, get("/static/data.bin", "If-None-Match", "\"a\", " + etag).statusCode());
        assertEquals(304, get("/static/data.bin", "If-Modified-Since", lastModified).statusCode());
        assertEquals(200, get("/static/data.bin", "If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT").statusCode());
        assertEquals(200, get("/static/data.bin", "If-Modified-Since", "garbage").statusCode());
        assertEquals(200, get("/static/data.bin", "If-None-Match", "\"other\"", "If-Modified-Since", lastModified).statusCode(),
                "If-None-Match decides; If-Modified-Since is ignored beside it (RFC 9110 §13.1.3)");
        assertEquals(412, get("/static/data.bin", "If-Match", "\"other\"").statusCode());
        assertEquals(200, get("/static/data.bin", "If-Match", etag).statusCode());
        assertEquals(412, get("/static/data.bin", "If-Unmodified-Since", "Sun, 06 Nov 1994 08:49:37 GMT").statusCode());

        HttpResponse<byte[]> head = send("HEAD", "/static/data.bin");
        assertEquals(200, head.statusCode());
        assertEquals("100000", h(head, "Content-Length"));
        assertEquals(etag, h(head, "ETag"));
        assertEquals(0, head.body().length);
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void oneRangeIs206NothingIs416AndTheRestIsTheWholeFile(String transport) throws Exception {
        start(transport, StaticOptions.defaults());
        HttpResponse<byte[]> first = get("/static/data.bin", "Range", "bytes=0-99");
        assertEquals(206, first.statusCode());
        assertEquals("bytes 0-99/100000", h(first, "Content-Range"));
        assertArrayEquals(Arrays.copyOfRange(data, 0, 100), first.body());
        HttpResponse<byte[]> suffix = get("/static/data.bin", "Range", "bytes=-10");
        assertEquals("bytes 99990-99999/100000", h(suffix, "Content-Range"));
        assertArrayEquals(Arrays.copyOfRange(data, 99_990, 100_000), suffix.body());
        HttpResponse<byte[]> open = get("/static/data.bin", "Range", "bytes=50000-");
        assertArrayEquals(Arrays.copyOfRange(data, 50_000, 100_000), open.body());
        HttpResponse<byte[]> middle = get("/static/big.bin", "Range", "bytes=1000001-2999999");
        assertEquals(206, middle.statusCode());
        assertArrayEquals(Arrays.copyOfRange(big, 1_000_001, 3_000_000), middle.body(), "sendfile from an offset");

        HttpResponse<byte[]> unsatisfiable = get("/static/data.bin", "Range", "bytes=100000-");
        assertEquals(416, unsatisfiable.statusCode());
        assertEquals("bytes */100000", h(unsatisfiable, "Content-Range"));
        for (String ignored : List.of("bytes=abc", "items=0-1", "bytes=5-1")) {
            HttpResponse<byte[]> whole = get("/static/data.bin", "Range", ignored);
            assertEquals(200, whole.statusCode(), ignored);
            assertArrayEquals(data, whole.body(), ignored);
        }
        StringBuilder many = new StringBuilder("bytes=0-0");
        for (int i = 1; i < 500; i++) {
            many.append(",0-").append(i);
        }
        HttpResponse<byte[]> abusive = get("/static/data.bin", "Range", many.toString());
        assertEquals(200, abusive.statusCode(), "many overlapping ranges (CVE-2011-3192) get the file once");
        assertEquals(data.length, abusive.body().length);

        String etag = h(first, "ETag");
        assertEquals(206, get("/static/data.bin", "Range", "bytes=0-9", "If-Range", etag).statusCode());
        assertEquals(206, get("/static/data.bin", "Range", "bytes=0-9", "If-Range", h(first, "Last-Modified")).statusCode());
        assertEquals(200, get("/static/data.bin", "Range", "bytes=0-9", "If-Range", "\"stale\"").statusCode());
        assertEquals(200, get("/static/data.bin", "Range", "bytes=0-9", "If-Range", "W/" + etag).statusCode());
        assertEquals(304, get("/static/data.bin", "Range", "bytes=0-9", "If-None-Match", etag).statusCode());

        HttpResponse<byte[]> headRange = send("HEAD", "/static/data.bin", "Range", "bytes=10-19");
        assertEquals(200, headRange.statusCode(), "Range is defined for GET only (RFC 9110 §14.2)");
        assertEquals("100000", h(headRange, "Content-Length"));
        assertNull(h(headRange, "Content-Range"));
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void directoriesServeTheirIndexAndTypesComeFromTheTable(String transport) throws Exception {
        start(transport, StaticOptions.builder().mediaType("webmanifest", "application/manifest+json").build());
        HttpResponse<byte[]> index = get("/static/");
        assertEquals(200, index.statusCode());
        assertEquals("<p>root</p>", new String(index.body(), StandardCharsets.UTF_8));
        assertEquals("text/html; charset=utf-8", h(index, "Content-Type"));
        HttpResponse<byte[]> redirect = get("/static/sub?x=1");
        assertEquals(301, redirect.statusCode());
        assertEquals("/static/sub/?x=1", h(redirect, "Location"));
        assertEquals("<p>sub</p>", new String(get("/static/sub/").body(), StandardCharsets.UTF_8));
        assertEquals(404, get("/static/noindex/").statusCode());
        assertEquals("application/manifest+json", h(get("/static/app.webmanifest"), "Content-Type"));
        assertEquals("text/plain; charset=utf-8", h(get("/static/a.txt"), "Content-Type"));
        assertEquals("hello, static\n", new String(get("/static/inside.txt").body(), StandardCharsets.UTF_8),
                "a link that stays inside the root is followed");
        assertEquals(405, send("POST", "/static/a.txt").statusCode());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void nothingOutsideTheRootNorHiddenIsServed(String transport) throws Exception {
        start(transport, StaticOptions.defaults());
        for (String path : List.of("/static/escape.txt", "/static/.secret", "/static/nope.txt", "/static/a.txt/",
                "/static/sub//index.html", "/static/%2esecret")) {
            Raw r = raw("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            // An empty segment inside a wildcard's rest is the router's 400 (it could make the rest absolute).
            assertEquals(path.contains("//") ? 400 : 404, r.status, path);
            assertFalse(r.text.contains("secret") && !r.text.contains("404"), path);
        }
        for (String path : List.of("/static/../secret.txt", "/static/%2e%2e/secret.txt", "/static/%2E%2E%2Fsecret.txt",
                "/static/..%2fsecret.txt", "/static/..%5csecret.txt", "/static/a.txt%00", "/static/..\\secret.txt",
                "/static/./../secret.txt", "/static/sub/../../secret.txt", "/static/%252e%252e/secret.txt")) {
            Raw r = raw("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(r.status == 400 || r.status == 404, path + " -> " + r.status);
            assertFalse(r.text.endsWith("secret"), path);
        }
        server.close();
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .staticFiles("/static", root, StaticOptions.builder().allowHidden(true).followSymlinksOut(true).build())
                .start();
        assertEquals("hidden", raw("GET /static/.secret HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").body());
        assertEquals("secret", raw("GET /static/escape.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").body());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void curlAndPythonAgree(String transport) throws Exception {
        start(transport, StaticOptions.defaults());
        String url = "http://127.0.0.1:" + server.port() + "/static/data.bin";
        Path out = dir.resolve("curl.out");
        assertEquals(0, run("curl", "-sS", "--max-time", "30", "-r", "100-199", "-o", out.toString(), url).exit);
        assertArrayEquals(Arrays.copyOfRange(data, 100, 200), Files.readAllBytes(out));
        Run head = run("curl", "-sS", "--max-time", "30", "-I", url);
        assertTrue(head.out.startsWith("HTTP/1.1 200"), head.out);
        assertTrue(head.out.contains("Content-Length: 100000"), head.out);
        String etag = head.out.lines().filter(l -> l.startsWith("ETag:")).findFirst().orElseThrow().substring(5).trim();
        Run cond = run("curl", "-sS", "--max-time", "30", "-o", "/dev/null", "-w", "%{http_code}", "-H", "If-None-Match: " + etag, url);
        assertEquals("304", cond.out);

        String script = "import http.client,sys\n"
                + "c=http.client.HTTPConnection('127.0.0.1'," + server.port() + ",timeout=30)\n"
                + "c.request('GET','/static/data.bin',headers={'Range':'bytes=-5'})\n"
                + "r=c.getresponse(); b=r.read()\n"
                + "print(r.status, r.getheader('Content-Range'), b.hex())\n"
                + "c.request('GET','/static/data.bin',headers={'If-None-Match':" + "'" + etag + "'})\n"
                + "r=c.getresponse(); r.read(); print(r.status)\n";
        Run py = run("python3", "-c", script);
        assertEquals(0, py.exit, py.out);
        StringBuilder hex = new StringBuilder();
        for (int i = data.length - 5; i < data.length; i++) {
            hex.append(String.format("%02x", data[i] & 0xff));
        }
        assertEquals("206 bytes 99995-99999/100000 " + hex + "\n304\n", py.out);
    }

    private static final class Run {
        int exit;
        String out;
    }

    private static Run run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(new ArrayList<>(List.of(cmd))).redirectErrorStream(true).start();
        byte[] bytes = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), cmd[0] + " did not finish");
        Run r = new Run();
        r.exit = p.exitValue();
        r.out = new String(bytes, StandardCharsets.ISO_8859_1).replace("\r\n", "\n");
        return r;
    }

    private static final class Raw {
        int status;
        String text;

        String body() {
            return text.substring(text.indexOf("\r\n\r\n") + 4);
        }
    }

    /** One request on its own connection ({@code Connection: close}); the whole answer as text. */
    private Raw raw(String request) throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            Raw r = new Raw();
            r.text = c.send(request).readToEnd();
            r.status = Integer.parseInt(r.text.substring(9, 12));
            return r;
        }
    }
}
