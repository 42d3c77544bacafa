package dev.peregrine.http2;

import dev.peregrine.Http2Options;
import dev.peregrine.Server;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files of any size and {@code res.stream} producers over HTTP/2 as DATA, read (or pulled) a frame
 * at a time as the peer's windows allow: whole and ranged through curl, several ranges as
 * multipart/byteranges, from a blocking handler, a
 * producer that fails (only its stream is cut), and a peer that never opens its window, which holds
 * a bounded amount of server memory and is cut by the stalled-write timeout. On every transport.
 */
class Http2FilesTest {
    private static final int MB = 1 << 20;

    private static Path file(Path dir, int size) throws Exception {
        byte[] content = new byte[size];
        new Random(size).nextBytes(content);
        Path f = dir.resolve("f" + size + ".bin");
        Files.write(f, content);
        return f;
    }

    private static void delete(Path dir) throws Exception {
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }

    /** The multipart/byteranges body (RFC 9110 §14.6) of {@code ranges} ({a, b} inclusive) of {@code content}, as StaticFiles lays it out. */
    private static byte[] byteranges(byte[] content, long[][] ranges, String boundary, String type) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        for (long[] r : ranges) {
            b.writeBytes(("\r\n--" + boundary + "\r\nContent-Type: " + type + "\r\nContent-Range: bytes " + r[0] + "-" + r[1] + "/"
                    + content.length + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            b.write(content, (int) r[0], (int) (r[1] - r[0] + 1));
        }
        b.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        return b.toByteArray();
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void severalRangesAreMultipartByterangesInData(String transport) throws Exception {
        Path dir = Files.createTempDirectory("h2-ranges");
        Path big = file(dir, 3 * MB + 5);
        byte[] content = Files.readAllBytes(big);
        long[][] ranges = {{0, 0}, {100, 16_483}, {1_000_000, 2_999_999}, {3_100_000, 3_100_000}, {3_145_000, content.length - 1}};
        String spec = "bytes=0-0,100-16483,1000000-2999999,3100000-3100000,3145000-";
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .staticFiles("/static", dir).start()) {
            String url = "http://127.0.0.1:" + server.port() + "/static/" + big.getFileName();
            Path got = dir.resolve("got");
            Path head = dir.resolve("head");
            assertEquals("206 2", Http2ClientsTest.run("curl", "-s", "--http2-prior-knowledge", "-H", "Range: " + spec, "-D", head.toString(),
                    "-o", got.toString(), "-w", "%{http_code} %{http_version}", url));
            String fields = Files.readString(head);
            int at = fields.indexOf("boundary=") + "boundary=".length();
            String boundary = fields.substring(at, fields.indexOf('\r', at));
            assertArrayEquals(byteranges(content, ranges, boundary, "application/octet-stream"), Files.readAllBytes(got));
            // the JDK HttpClient starts with Upgrade: h2c: the ranges are answered on the upgrade's stream 1
            java.net.http.HttpResponse<byte[]> jdk = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_2)
                    .build().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).header("Range", spec).build(),
                            java.net.http.HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(java.net.http.HttpClient.Version.HTTP_2, jdk.version());
            assertEquals(206, jdk.statusCode());
            assertArrayEquals(byteranges(content, ranges, jdk.headers().firstValue("content-type").orElseThrow().replaceAll(".*boundary=", ""),
                    "application/octet-stream"), jdk.body());
            String h = Http2ClientsTest.run("curl", "-s", "-I", "--http2-prior-knowledge", "-H", "Range: " + spec, url);
            assertTrue(h.startsWith("HTTP/2 200"), h); // Range applies to GET only (RFC 9110 §14.2): HEAD gets the whole's head
        } finally {
            delete(dir);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void largeFilesWholeAndRangedThroughCurl(String transport) throws Exception {
        Path dir = Files.createTempDirectory("h2-files");
        Path big = file(dir, 5 * MB + 123);
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .staticFiles("/static", dir)
                .get("/blocking-file", dev.peregrine.Execution.BLOCKING, (req, res) -> res.sendFile(big)).start()) {
            String base = "http://127.0.0.1:" + server.port();
            Path got = dir.resolve("got");
            for (String path : new String[] {"/static/" + big.getFileName(), "/blocking-file"}) {
                assertEquals("200 2", Http2ClientsTest.run("curl", "-s", "--http2-prior-knowledge", "-o", got.toString(),
                        "-w", "%{http_code} %{http_version}", base + path));
                assertArrayEquals(Files.readAllBytes(big), Files.readAllBytes(got), path + " came back changed");
            }
            assertEquals("206 2", Http2ClientsTest.run("curl", "-s", "--http2-prior-knowledge", "-r", "1000000-2999999",
                    "-o", got.toString(), "-w", "%{http_code} %{http_version}", base + "/static/" + big.getFileName()));
            assertArrayEquals(Arrays.copyOfRange(Files.readAllBytes(big), 1_000_000, 3_000_000), Files.readAllBytes(got));
        } finally {
            delete(dir);
        }
    }

    /** A producer of {@code total} bytes, {@code (byte) i} at index i, in pieces of whatever room it is given. */
    private static dev.peregrine.BodyProducer counting(long total, long failAt) {
        long[] at = {0};
        return dst -> {
            while (dst.hasRemaining() && at[0] < total) {
                if (at[0] == failAt) {
                    throw new IllegalStateException("producer failed on purpose");
                }
                dst.put((byte) at[0]++);
            }
            return at[0] < total;
        };
    }

    private static byte[] counted(int total) {
        byte[] b = new byte[total];
        for (int i = 0; i < total; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void producersInlineAndBlockingThroughCurl(String transport) throws Exception {
        Path dir = Files.createTempDirectory("h2-produced");
        int total = 3 * MB + 7;
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .get("/produced", (req, res) -> res.stream(counting(total, -1)))
                .get("/produced-blocking", dev.peregrine.Execution.BLOCKING, (req, res) -> res.stream(counting(total, -1)))
                .get("/failing", (req, res) -> res.stream(counting(total, 100_000)))
                .get("/plaintext", (req, res) -> res.text("Hello, World!")).start()) {
            String base = "http://127.0.0.1:" + server.port();
            Path got = dir.resolve("got");
            for (String path : new String[] {"/produced", "/produced-blocking"}) {
                assertEquals("200 2", Http2ClientsTest.run("curl", "-s", "--http2-prior-knowledge", "-o", got.toString(),
                        "-w", "%{http_code} %{http_version}", base + path));
                assertArrayEquals(counted(total), Files.readAllBytes(got), path + " came back changed");
            }
            try (H2Wire w = new H2Wire(server.port()).start()) {
                w.frame(8, 0, 0, H2Wire.int32(1 << 30)); // WINDOW_UPDATE on the connection: room for the failure to come
                w.frame(4, 0, 0, new byte[] {0, 4, 0x3f, (byte) 0xff, (byte) 0xff, (byte) 0xff}); // INITIAL_WINDOW_SIZE 2^30-1
                w.headers(1, true, H2Wire.get("/failing"));
                H2Wire.Frame rst = w.until(3);
                assertEquals(1, rst.stream());
                assertEquals(0x2, rst.int32(0)); // INTERNAL_ERROR: only this stream is cut
                w.headers(3, true, H2Wire.get("/plaintext"));
                H2Wire.Frame data = w.until(0);
                assertEquals(3, data.stream());
                assertEquals("Hello, World!", new String(data.payload(), java.nio.charset.StandardCharsets.ISO_8859_1));
            }
        } finally {
            delete(dir);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aPeerThatNeverOpensItsWindowHoldsLittleAndIsCut(String transport) throws Exception {
        Path dir = Files.createTempDirectory("h2-stall");
        Path big = file(dir, 64 * MB);
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport)
                .http2(Http2Options.builder().stalledWriteTimeout(Duration.ofSeconds(1)).build())
                .staticFiles("/static", dir).start();
             H2Wire w = new H2Wire(server.port()).start()) {
            long lentBefore = server.metrics().lentBytes;
            w.headers(1, true, H2Wire.get("/static/" + big.getFileName()));
            // RFC 9113 §6.9.2: 65,535 bytes is all the default windows let out; then the server waits
            long data = 0;
            while (data < 65_535) {
                H2Wire.Frame f = w.read();
                if (f.type() == 0) {
                    data += f.payload().length;
                }
            }
            assertEquals(65_535, data);
            long lent = server.metrics().lentBytes - lentBefore;
            assertTrue(lent <= 256 * 1024, lent + " bytes lent for a 64 MiB file held by a zero window");
            assertEquals(0xb, w.goAwayCode()); // ENHANCE_YOUR_CALM after stalledWriteTimeout
            assertTrue(w.closedByServer());
            dev.peregrine.testing.Await.until("the stalled write counted",
                    () -> server.metrics().http2Defence("stalled_write") == 1);
            try (H2Wire other = new H2Wire(server.port()).start()) { // the server is fine for others
                other.headers(1, true, H2Wire.get("/static/" + big.getFileName()));
                assertTrue(other.until(0) != null);
            }
        } finally {
            delete(dir);
        }
    }
}
