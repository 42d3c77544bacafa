package dev.peregrine.http2;

import dev.peregrine.Server;
import dev.peregrine.h2.hpack.HpackDecoder;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server's HPACK encoder indexes response fields into a table per connection (RFC 7541 §6.2.1):
 * real decoders (the JDK HttpClient's, nghttp2's with a table and without one) read every response of
 * a long connection right while the fields repeat, change, grow past what is indexed and push older
 * entries out; a peer whose SETTINGS_HEADER_TABLE_SIZE is 0 gets a size update to 0 first and no
 * reference into a table. On every transport.
 */
class Http2HpackTableTest {
    /** {@code /vary?i=N}: a body of N % 23 bytes, fields that repeat (x-vary), change with N, are large or sensitive. */
    static Server start(String transport) {
        return Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .get("/vary", (req, res) -> {
                    int i = Integer.parseInt(req.query().get("i"));
                    res.header("X-Vary", "v" + i % 5);
                    res.header("X-Each", "each-" + i);
                    if (i % 7 == 0) {
                        res.header("X-Large", "L".repeat(1500 + i)); // above a quarter of the table: never indexed
                    }
                    if (i % 11 == 0) {
                        res.header("Set-Cookie", "c=" + i);
                    }
                    res.contentType(i % 2 == 0 ? "text/plain" : "application/octet-stream");
                    res.body("x".repeat(i % 23).getBytes(StandardCharsets.US_ASCII));
                })
                .start();
    }

    static void check(int i, HttpResponse<String> r) {
        assertEquals(HttpClient.Version.HTTP_2, r.version());
        assertEquals(200, r.statusCode());
        assertEquals("x".repeat(i % 23), r.body(), "body of " + i);
        assertEquals("v" + i % 5, r.headers().firstValue("x-vary").orElse(null), "x-vary of " + i);
        assertEquals("each-" + i, r.headers().firstValue("x-each").orElse(null), "x-each of " + i);
        assertEquals(i % 7 == 0 ? "L".repeat(1500 + i) : null, r.headers().firstValue("x-large").orElse(null), "x-large of " + i);
        assertEquals(i % 11 == 0 ? "c=" + i : null, r.headers().firstValue("set-cookie").orElse(null), "set-cookie of " + i);
        assertEquals(i % 2 == 0 ? "text/plain" : "application/octet-stream", r.headers().firstValue("content-type").orElse(null));
        assertEquals(Integer.toString(i % 23), r.headers().firstValue("content-length").orElse(null));
        assertEquals("Peregrine", r.headers().firstValue("server").orElse(null));
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void jdkClientReadsEveryResponseOfALongConnection(String transport) throws Exception {
        try (Server server = start(transport)) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(10)).build();
            String base = "http://127.0.0.1:" + server.port() + "/vary?i=";
            for (int i = 0; i < 60; i++) { // one at a time: each block against the table the one before left
                check(i, client.send(HttpRequest.newBuilder(URI.create(base + i)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (int batch = 60; batch < 360; batch += 50) { // many streams at once: blocks of several streams in one write
                List<CompletableFuture<HttpResponse<String>>> many = new ArrayList<>();
                for (int i = batch; i < batch + 50; i++) {
                    many.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + i)).build(), HttpResponse.BodyHandlers.ofString()));
                }
                for (int i = 0; i < many.size(); i++) {
                    check(batch + i, many.get(i).get(30, TimeUnit.SECONDS));
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void nghttpWithAndWithoutATable(String transport) throws Exception {
        Assumptions.assumeTrue(Http2ClientsTest.installed("nghttp"), "nghttp2-client is not installed");
        try (Server server = start(transport)) {
            for (String tableSize : new String[] {"4096", "0", "100"}) {
                List<String> command = new ArrayList<>(List.of("nghttp", "-v", "-c", tableSize));
                for (int i = 1; i <= 40; i++) {
                    command.add("http://127.0.0.1:" + server.port() + "/vary?i=" + i); // one connection, one stream each
                }
                String out = Http2ClientsTest.run(command.toArray(new String[0]));
                // "[  0.060] recv (stream_id=13) name: value" per field; nghttp picks the stream ids
                java.util.Map<String, java.util.Map<String, String>> byStream = new java.util.HashMap<>();
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("recv \\(stream_id=(\\d+)\\) ([^:]+|:[^:]+): (.*)").matcher(out);
                while (m.find()) {
                    byStream.computeIfAbsent(m.group(1), k -> new java.util.HashMap<>()).put(m.group(2), m.group(3));
                }
                java.util.Set<Integer> seen = new java.util.HashSet<>();
                for (java.util.Map<String, String> f : byStream.values()) {
                    String each = f.get("x-each");
                    assertNotNull(each, () -> "table " + tableSize + ": a response without x-each: " + f);
                    int i = Integer.parseInt(each.substring("each-".length()));
                    seen.add(i);
                    assertEquals("v" + i % 5, f.get("x-vary"), "table " + tableSize + ": x-vary of " + i);
                    assertEquals(Integer.toString(i % 23), f.get("content-length"), "table " + tableSize + ": length of " + i);
                    assertEquals("Peregrine", f.get("server"), "table " + tableSize + ": server of " + i);
                    assertEquals(i % 7 == 0 ? "L".repeat(1500 + i) : null, f.get("x-large"), "table " + tableSize + ": x-large of " + i);
                    assertEquals(i % 2 == 0 ? "text/plain" : "application/octet-stream", f.get("content-type"));
                }
                assertEquals(40, seen.size(), "table " + tableSize + ": responses " + seen);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aPeerWithoutATableGetsASizeUpdateAndNoIndexedField(String transport) throws Exception {
        try (Server server = start(transport); H2Wire w = new H2Wire(server.port())) {
            w.raw(H2Wire.PREFACE);
            w.frame(4, 0, 0, new byte[] {0, 1, 0, 0, 0, 0}); // SETTINGS_HEADER_TABLE_SIZE 0
            HpackDecoder decoder = new HpackDecoder(0, 1 << 20); // refuses any size above 0 and any dynamic index
            for (int i = 1; i <= 5; i++) {
                w.headers(2 * i - 1, true, H2Wire.get("/vary?i=" + i));
                H2Wire.Frame headers = w.until(1);
                assertNotNull(headers);
                assertEquals(2 * i - 1, headers.stream());
                byte[] block = headers.payload();
                if (i == 1) {
                    assertEquals(0x20, block[0] & 0xff, "a size update to 0 before the first field");
                }
                ByteBuffer src = ByteBuffer.wrap(block);
                ByteBuffer dst = ByteBuffer.allocate(decoder.destinationBound(block.length, 0));
                List<String> fields = new ArrayList<>();
                int r = decoder.decode(src, 0, block.length, dst, 0, dst.capacity(), (b, ns, ne, vs, ve) ->
                        fields.add(text(b, ns, ne) + ": " + text(b, vs, ve)));
                assertTrue(r >= 0, "block " + i + " does not decode without a table: " + r);
                assertTrue(fields.contains("x-vary: v" + i % 5), fields.toString());
                assertEquals(0, decoder.table().dynamicCount());
            }
        }
    }

    private static String text(ByteBuffer b, int s, int e) {
        byte[] a = new byte[e - s];
        b.get(s, a);
        return new String(a, StandardCharsets.ISO_8859_1);
    }
}
