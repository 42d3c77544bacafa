package dev.peregrine.web;

import dev.peregrine.Compression;
import dev.peregrine.Server;
import dev.peregrine.compress.Coding;
import dev.peregrine.StaticOptions;
import dev.peregrine.testing.Curl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Text files without a precompressed sibling are compressed for clients that accept a coding, once per
 * file version ({@code files.CompressedVariants}): the bytes, validators and Vary a client sees, the cases
 * that keep the file itself (ranges, no coding accepted, types and sizes not compressed, compression off),
 * a changed file, and a file large enough to be compressed in the background.
 */
class StaticCompressionTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    @TempDir
    Path dir;
    private Server server;

    private Path root() throws IOException {
        Path root = dir.resolve("public");
        Files.createDirectories(root);
        return root;
    }

    private void start(StaticOptions options) throws IOException {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).staticFiles("/static", root(), options).start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** A 26 KB stylesheet: text, compressible, no sibling. */
    private static byte[] stylesheet(String seed) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; b.length() < 26_000; i++) {
            b.append(".rule-").append(seed).append(i).append(" { color: #").append(Integer.toHexString(i * 7919 & 0xffffff))
                    .append("; margin: ").append(i % 13).append("px; }\n");
        }
        return b.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private HttpResponse<byte[]> get(String path, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static byte[] gunzip(byte[] gz) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(gz))) {
            return in.readAllBytes();
        }
    }

    private static String header(HttpResponse<?> r, String name) {
        return r.headers().firstValue(name).orElse(null);
    }

    @Test
    void aTextFileLeavesCompressedToAClientThatAcceptsGzipFromTheFirstRequest() throws Exception {
        byte[] css = stylesheet("a");
        Files.write(root().resolve("site.css"), css);
        start(StaticOptions.defaults());

        HttpResponse<byte[]> first = get("/static/site.css", "Accept-Encoding", "gzip");
        assertEquals(200, first.statusCode());
        assertEquals("gzip", header(first, "Content-Encoding"));
        assertEquals("Accept-Encoding", header(first, "Vary"));
        assertTrue(first.body().length < css.length / 3, "compressed to " + first.body().length + " of " + css.length);
        assertEquals(String.valueOf(first.body().length), header(first, "Content-Length"));
        assertArrayEquals(css, gunzip(first.body()));
        assertTrue(header(first, "ETag").endsWith("-gzip\""), header(first, "ETag"));

        HttpResponse<byte[]> second = get("/static/site.css", "Accept-Encoding", "gzip");
        assertArrayEquals(first.body(), second.body(), "the same cached copy");
        assertEquals(header(first, "ETag"), header(second, "ETag"));

        HttpResponse<byte[]> identity = get("/static/site.css");
        assertNull(header(identity, "Content-Encoding"));
        assertEquals("Accept-Encoding", header(identity, "Vary"));
        assertArrayEquals(css, identity.body());
        assertNotEquals(header(identity, "ETag"), header(first, "ETag"), "one validator per representation");

        assertEquals(new String(css, StandardCharsets.US_ASCII),
                Curl.run("-s", "--compressed", "http://127.0.0.1:" + server.port() + "/static/site.css"));
    }

    @Test
    void validatorsOfTheCompressedCopyWork() throws Exception {
        Files.write(root().resolve("site.css"), stylesheet("b"));
        start(StaticOptions.defaults());
        String etag = header(get("/static/site.css", "Accept-Encoding", "gzip"), "ETag");

        HttpResponse<byte[]> notModified = get("/static/site.css", "Accept-Encoding", "gzip", "If-None-Match", etag);
        assertEquals(304, notModified.statusCode());
        assertEquals(etag, header(notModified, "ETag"));
        // the identity's client holding the gzip copy's tag has another representation: 200
        assertEquals(200, get("/static/site.css", "If-None-Match", etag).statusCode());
        assertEquals(412, get("/static/site.css", "Accept-Encoding", "gzip", "If-Match", "\"other\"").statusCode());
    }

    @Test
    void rangesNoCodingOtherTypesAndSmallFilesGetTheFileItself() throws Exception {
        byte[] css = stylesheet("c");
        Files.write(root().resolve("site.css"), css);
        byte[] png = new byte[30_000];
        Files.write(root().resolve("logo.png"), png);
        Files.writeString(root().resolve("tiny.txt"), "small");
        start(StaticOptions.defaults());

        HttpResponse<byte[]> range = get("/static/site.css", "Accept-Encoding", "gzip", "Range", "bytes=0-9");
        assertEquals(206, range.statusCode());
        assertNull(header(range, "Content-Encoding"));
        assertArrayEquals(java.util.Arrays.copyOf(css, 10), range.body());

        assertNull(header(get("/static/site.css", "Accept-Encoding", "gzip;q=0, identity"), "Content-Encoding"));
        assertNull(header(get("/static/logo.png", "Accept-Encoding", "gzip"), "Content-Encoding"));
        HttpResponse<byte[]> tiny = get("/static/tiny.txt", "Accept-Encoding", "gzip");
        assertNull(header(tiny, "Content-Encoding"));
        assertEquals("small", new String(tiny.body(), StandardCharsets.US_ASCII));
    }

    @Test
    void theClientsPreferredCodingWins() throws Exception {
        byte[] css = stylesheet("d");
        Files.write(root().resolve("site.css"), css);
        start(StaticOptions.defaults());
        HttpResponse<byte[]> deflate = get("/static/site.css", "Accept-Encoding", "gzip;q=0.5, deflate");
        assertEquals("deflate", header(deflate, "Content-Encoding"));
        if (Coding.BR.available()) {
            assertEquals("br", header(get("/static/site.css", "Accept-Encoding", "gzip, br"), "Content-Encoding"));
        }
        HttpResponse<byte[]> gzip = get("/static/site.css", "Accept-Encoding", "gzip");
        assertArrayEquals(css, gunzip(gzip.body()), "each coding its own copy");
    }

    @Test
    void aChangedFileIsCompressedAgain() throws Exception {
        Path file = root().resolve("site.css");
        Files.write(file, stylesheet("e"));
        start(StaticOptions.defaults());
        HttpResponse<byte[]> before = get("/static/site.css", "Accept-Encoding", "gzip");

        byte[] changed = stylesheet("f");
        Files.write(file, changed);
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5_000));
        HttpResponse<byte[]> after = get("/static/site.css", "Accept-Encoding", "gzip");
        assertArrayEquals(changed, gunzip(after.body()));
        assertNotEquals(header(before, "ETag"), header(after, "ETag"));
    }

    @Test
    void aLargeFileIsCompressedInTheBackgroundAndSentAsItIsMeanwhile() throws Exception {
        byte[] big = new byte[1 << 20];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + (i * 31 + i / 977) % 26);
        }
        Files.write(root().resolve("big.txt"), big);
        start(StaticOptions.defaults());
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        HttpResponse<byte[]> r;
        int identities = 0;
        while (true) {
            r = get("/static/big.txt", "Accept-Encoding", "gzip");
            if ("gzip".equals(header(r, "Content-Encoding"))) {
                break;
            }
            assertArrayEquals(big, r.body(), "until the copy is ready, the file itself");
            identities++;
            assertTrue(System.nanoTime() < deadline, "still not compressed after " + identities + " requests");
            Thread.onSpinWait();
        }
        assertArrayEquals(big, gunzip(r.body()));
    }

    @Test
    void compressionNullServesFilesAsTheyAre() throws Exception {
        byte[] css = stylesheet("g");
        Files.write(root().resolve("site.css"), css);
        start(StaticOptions.builder().compression(null).precompressed(false).build());
        HttpResponse<byte[]> r = get("/static/site.css", "Accept-Encoding", "gzip");
        assertNull(header(r, "Content-Encoding"));
        assertNull(header(r, "Vary"));
        assertArrayEquals(css, r.body());
    }

    @Test
    void theServersOwnCompressionSettingsCanBeUsed() throws Exception {
        Files.write(root().resolve("site.css"), stylesheet("h"));
        Files.writeString(root().resolve("notes.txt"), "# notes\n".repeat(500));
        start(StaticOptions.builder().compression(Compression.builder().codings("gzip").types("text/css").build()).build());
        assertEquals("gzip", header(get("/static/site.css", "Accept-Encoding", "deflate, gzip;q=0.1"), "Content-Encoding"));
        assertNull(header(get("/static/notes.txt", "Accept-Encoding", "gzip"), "Content-Encoding"), "type not listed");
    }
}
