package dev.peregrine.hardening;

import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A handler that trusts a path parameter — {@code root.resolve(req.pathParam("file"))}, the naive
 * way — still cannot be led out of its directory: parameters that decode to a separator, NUL or a dot
 * segment are refused with 400 before the handler runs.
 */
class PathParamsTest {
    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void encodedSeparatorsAndDotSegmentsInAParameterAre400(String transport, @TempDir Path dir) throws Exception {
        Path root = Files.createDirectories(dir.resolve("public"));
        Files.writeString(root.resolve("hello.txt"), "hello");
        Files.writeString(dir.resolve("secret.txt"), "secret");
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .get("/naive/{file}", (req, res) -> res.sendFile(root.resolve(req.pathParam("file"))))
                .start();
        try (RawClient w = new RawClient(server.port())) {
            w.send("GET /naive/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n");
            RawResponse ok = w.read();
            assertEquals(200, ok.status);
            assertEquals("hello", ok.text());
            for (String attack : List.of("..%2fsecret.txt", "..%2Fsecret.txt", "..%5csecret.txt", "%2e%2e",
                    "..", "%2E", "hello.txt%00.png", "..%2f..%2f..%2f..%2f..%2fetc%2fhostname")) {
                w.send("GET /naive/" + attack + " HTTP/1.1\r\nHost: x\r\n\r\n");
                RawResponse r = w.read();
                assertEquals(400, r.status, attack);
            }
            // Encoded bytes that cannot leave the segment are fine.
            w.send("GET /naive/hello%2etxt HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals("hello", w.read().text());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void sendFileUnderARootNeverLeavesIt(String transport, @TempDir Path dir) throws Exception {
        Path root = Files.createDirectories(dir.resolve("public"));
        Files.createDirectories(root.resolve("css"));
        Files.writeString(root.resolve("css/site.css"), "body{}");
        Files.writeString(root.resolve("index.html"), "<p>hi</p>");
        Files.writeString(dir.resolve("secret.txt"), "secret");
        Files.createSymbolicLink(root.resolve("escape.txt"), dir.resolve("secret.txt"));
        Files.createSymbolicLink(root.resolve("inside.txt"), root.resolve("index.html"));
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1)
                .get("/files/*", (req, res) -> res.sendFile(root, req.pathParam("*")))
                .get("/missing", (req, res) -> res.sendFile(dir.resolve("nope.txt")))
                .start();
        try (RawClient w = new RawClient(server.port())) {
            w.send("GET /files/css/site.css HTTP/1.1\r\nHost: x\r\n\r\n");
            RawResponse css = w.read();
            assertEquals(200, css.status);
            assertEquals("text/css; charset=utf-8", css.header("Content-Type"));
            assertEquals("body{}", css.text());
            w.send("GET /files/inside.txt HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals("<p>hi</p>", w.read().text(), "a link that stays inside the root is followed");
            for (String path : List.of("/files/escape.txt", "/files/nope.txt", "/files/css", "/files/", "/missing")) {
                w.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
                RawResponse r = w.read();
                assertEquals(404, r.status, path);
                assertEquals("404 Not Found\n", r.text(), path);
            }
        }
    }
}
