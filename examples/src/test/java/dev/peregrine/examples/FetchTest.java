package dev.peregrine.examples;

import dev.peregrine.Server;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code fetch} command line as the README documents it: output, exit codes, the error line. */
class FetchTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int fetch(String... args) {
        return Fetch.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void printsBodiesHeadersAndSendsData() throws Exception {
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).start()) {
            String base = "http://127.0.0.1:" + server.port();
            assertEquals(0, fetch("-n", "3", base + "/plaintext"));
            assertEquals("Hello, World!".repeat(3), out.toString(StandardCharsets.UTF_8));
            out.reset();
            assertEquals(0, fetch("-i", base + "/plaintext"));
            String shown = out.toString(StandardCharsets.UTF_8);
            assertTrue(shown.startsWith("HTTP/1.1 200 OK\r\n") && shown.contains("\r\nServer: Peregrine\r\n")
                    && shown.endsWith("\r\n\r\nHello, World!"), shown);
            out.reset();
            assertEquals(0, fetch("-d", "echo this", "-H", "X-A: b", base + "/echo"));
            assertEquals("echo this", out.toString(StandardCharsets.UTF_8));
            out.reset();
            Path file = Files.createTempFile("fetch", ".txt");
            Files.writeString(file, "from a file");
            assertEquals(0, fetch("-X", "POST", "-d", "@" + file, base + "/echo"));
            assertEquals("from a file", out.toString(StandardCharsets.UTF_8));
            Files.delete(file);
            out.reset();
            assertEquals(0, fetch(base + "/nowhere"), "a 404 is a response: exit 0");
        }
    }

    @Test
    void http2OverH2cByPriorKnowledge() throws Exception {
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).http2(true).start()) {
            String base = "http://127.0.0.1:" + server.port();
            assertEquals(0, fetch("--http2", "-i", "-n", "2", base + "/plaintext"));
            assertEquals(1, server.metrics().accepted, "-n 2: one connection");
            String shown = out.toString(StandardCharsets.UTF_8);
            assertTrue(shown.startsWith("HTTP/2 200\r\n") && shown.indexOf("HTTP/2 200\r\n", 5) > 0 && shown.contains("\r\nserver: Peregrine\r\n")
                    && shown.endsWith("\r\n\r\nHello, World!"), shown);
            out.reset();
            assertEquals(0, fetch("--http2", "-d", "over h2", base + "/echo"));
            assertEquals("over h2", out.toString(StandardCharsets.UTF_8));
            assertEquals(2, server.metrics().accepted, "a connection per run");
        }
    }

    @Test
    void failuresExitOneWithOneErrorLine() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertEquals(1, fetch("--timeout", "2s", "http://127.0.0.1:" + port + "/"));
        String line = err.toString(StandardCharsets.UTF_8);
        assertTrue(line.startsWith("error: connect failed") && line.endsWith("\n") && line.indexOf('\n') == line.length() - 1, line);
        err.reset();
        assertEquals(2, fetch("-n"));
        assertEquals(2, fetch("ftp://x/"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("error: not an absolute http or https URL"));
    }
}
