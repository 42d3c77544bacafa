package dev.peregrine.http2;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * Real HTTP/2 clients against the plain port: curl by prior knowledge and by {@code Upgrade: h2c},
 * the JDK HttpClient (h2c upgrade, then many streams on the connection), nghttp and h2load where
 * Debian's nghttp2-client is installed; the same handlers, filters and views as HTTP/1.1. On every
 * transport.
 */
class Http2ClientsTest {
    static Server start(String transport) {
        Server.Builder b = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).transport(transport)
                .http2(true)
                .filter((req, res, next) -> {
                    res.header("X-Filtered", "yes");
                    next.handle(req, res);
                })
                .get("/h2/who", (req, res) -> res.text(req.version() + " " + req.host() + " " + req.method() + " "
                        + req.path() + " " + req.query().get("q") + " " + req.header("Host")))
                .get("/h2/blocking", dev.peregrine.Execution.BLOCKING, (req, res) -> res.text("blocked"))
                .get("/h2/interim", (req, res) -> {
                    res.interim(103, "Link", "</style.css>; rel=preload");
                    res.text("after interim");
                })
                .get("/h2/async", (req, res) -> {
                    dev.peregrine.Completion later = res.async();
                    later.response().text("later");
                    later.complete();
                });
        return b.start();
    }

    static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        // read before waiting: an output larger than the pipe would otherwise stall the tool
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String shown = String.join(" ", command);
        String brief = shown.length() > 200 ? shown.substring(0, 200) + "..." : shown;
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "timed out: " + brief);
        String out = new String(read.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> brief + " failed:\n" + (out.length() > 2000 ? out.substring(0, 2000) : out));
        return out;
    }

    static boolean installed(String tool) {
        try {
            return new ProcessBuilder(tool, "--version").redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void curlPriorKnowledge(String transport) throws Exception {
        try (Server server = start(transport)) {
            String base = "http://127.0.0.1:" + server.port();
            assertEquals("Hello, World! 2 200", run("curl", "-s", "--http2-prior-knowledge", "-w", " %{http_version} %{http_code}",
                    base + "/plaintext"));
            assertEquals("HTTP/2.0 127.0.0.1:" + server.port() + " GET /h2/who x 127.0.0.1:" + server.port(),
                    run("curl", "-s", "--http2-prior-knowledge", base + "/h2/who?q=x"));
            String body = "a=1&b=" + "x".repeat(100_000); // past one window's half: WINDOW_UPDATEs flow
            java.nio.file.Path file = java.nio.file.Files.createTempFile("h2-body", ".txt");
            java.nio.file.Files.writeString(file, body);
            String echoed = run("curl", "-s", "--http2-prior-knowledge", "-H", "Content-Type: text/plain", "--data-binary",
                    "@" + file, base + "/echo");
            java.nio.file.Files.delete(file);
            assertEquals(body.length(), echoed.length());
            assertTrue(body.equals(echoed), "the echoed body differs");
            String head = run("curl", "-s", "-I", "--http2-prior-knowledge", base + "/plaintext");
            assertTrue(head.startsWith("HTTP/2 200") && head.contains("content-length: 13") && head.contains("x-filtered: yes"), head);
            // (several URLs on one prior-knowledge connection: curl 7.88.1 fails its own reuse with exit 16,
            // against Go's h2c server too; the JDK client, nghttp and h2load cover many streams per connection)
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void curlUpgradeH2c(String transport) throws Exception {
        try (Server server = start(transport)) {
            String out = run("curl", "-s", "-i", "--http2", "http://127.0.0.1:" + server.port() + "/h2/who?q=u");
            assertTrue(out.startsWith("HTTP/1.1 101 Switching Protocols"), out);
            assertTrue(out.contains("HTTP/2 200"), out);
            // the request became stream 1: read as any stream's (h2.Http2Upgrade)
            assertTrue(out.endsWith("HTTP/2.0 127.0.0.1:" + server.port() + " GET /h2/who u 127.0.0.1:" + server.port()), out);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void jdkClientUpgradesThenMultiplexes(String transport) throws Exception {
        try (Server server = start(transport)) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(10)).build();
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/plaintext");
            HttpResponse<String> first = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, first.version());
            assertEquals("Hello, World!", first.body());
            List<CompletableFuture<HttpResponse<String>>> many = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                HttpRequest r = i % 2 == 0 ? HttpRequest.newBuilder(uri).build()
                        : HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/echo"))
                        .POST(HttpRequest.BodyPublishers.ofString("body " + i)).build();
                many.add(client.sendAsync(r, HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < many.size(); i++) {
                HttpResponse<String> r = many.get(i).get(30, TimeUnit.SECONDS);
                assertEquals(HttpClient.Version.HTTP_2, r.version());
                assertEquals(i % 2 == 0 ? "Hello, World!" : "body " + i, r.body());
                assertEquals("yes", r.headers().firstValue("x-filtered").orElse(null));
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void blockingAsyncAndInterimAnswerOnTheirStreams(String transport) throws Exception {
        try (Server server = start(transport); H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/h2/blocking"));
            H2Wire.Frame data = w.until(0);
            assertEquals(1, data.stream());
            assertEquals("blocked", new String(data.payload(), StandardCharsets.ISO_8859_1));
            w.headers(3, true, H2Wire.get("/h2/async")); // res.async()
            data = w.until(0);
            assertEquals(3, data.stream());
            assertEquals("later", new String(data.payload(), StandardCharsets.ISO_8859_1));
            w.headers(5, true, H2Wire.get("/h2/interim")); // 103 as HEADERS without END_STREAM, then the final one
            H2Wire.Frame interim = w.until(1);
            assertEquals(5, interim.stream());
            assertEquals(0, interim.flags() & 1);
            data = w.until(0);
            assertEquals(5, data.stream());
            assertEquals("after interim", new String(data.payload(), StandardCharsets.ISO_8859_1));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void gracefulShutdownSendsGoAwayWithTheLastStream(String transport) throws Exception {
        Server server = start(transport);
        try (H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/plaintext"));
            w.headers(3, true, H2Wire.get("/json"));
            assertNotNull(w.until(0));
            CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
            H2Wire.Frame goAway = w.until(7);
            assertNotNull(goAway, "no GOAWAY before the close");
            assertEquals(3, goAway.int32(0)); // the last stream the server opened
            assertEquals(0, goAway.int32(4)); // NO_ERROR
            assertTrue(w.closedByServer());
            w.close(); // the server drains until the client closes too
            closing.get(30, TimeUnit.SECONDS);
        } finally {
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void staticFilesAndTheirRanges(String transport) throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("h2-static");
        byte[] content = new byte[300_000]; // above the 16 KiB kept in memory: sendFile, read into DATA frames
        new java.util.Random(2).nextBytes(content);
        java.nio.file.Files.write(dir.resolve("big.bin"), content);
        java.nio.file.Files.writeString(dir.resolve("small.txt"), "small file\n");
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .staticFiles("/static", dir).start()) {
            String base = "http://127.0.0.1:" + server.port() + "/static/";
            java.nio.file.Path got = dir.resolve("got.bin");
            run("curl", "-s", "--http2-prior-knowledge", "-o", got.toString(), base + "big.bin");
            assertTrue(java.util.Arrays.equals(content, java.nio.file.Files.readAllBytes(got)), "the file came back changed");
            String range = run("curl", "-s", "--http2-prior-knowledge", "-r", "10-19", "-o", got.toString(),
                    "-w", "%{http_code} %{size_download}", base + "big.bin");
            assertEquals("206 10", range);
            assertTrue(java.util.Arrays.equals(java.util.Arrays.copyOfRange(content, 10, 20), java.nio.file.Files.readAllBytes(got)));
            assertEquals("small file\n", run("curl", "-s", "--http2-prior-knowledge", base + "small.txt"));
            assertEquals("404", run("curl", "-s", "--http2-prior-knowledge", "-o", "/dev/null", "-w", "%{http_code}", base + "none.txt"));
        } finally {
            try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path f : files.toList()) {
                    java.nio.file.Files.delete(f);
                }
            }
            java.nio.file.Files.delete(dir);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void nghttpAndH2load(String transport) throws Exception {
        Assumptions.assumeTrue(installed("nghttp") && installed("h2load"), "nghttp2-client is not installed");
        try (Server server = start(transport)) {
            String base = "http://127.0.0.1:" + server.port();
            assertEquals("Hello, World!", run("nghttp", base + "/plaintext"));
            assertEquals("{\"message\":\"Hello, World!\"}", run("nghttp", "-u", base + "/json")); // h2c upgrade
            String load = run("h2load", "-n", "2000", "-c", "4", "-m", "20", base + "/plaintext");
            assertTrue(load.contains("2000 succeeded, 0 failed, 0 errored"), load);
            assertTrue(load.contains("status codes: 2000 2xx"), load);
        }
    }
}
