package dev.peregrine.hardening;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code shutdownHook(true)} in a child JVM sent SIGTERM: the server closes gracefully — a request in
 * flight is answered — and the "stopped in N ms" line is printed, although java.util.logging shuts
 * itself down at the same moment.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class ShutdownHookTest {
    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;

    /** The child: a server with the hook, its port on stdout, then nothing but waiting for the signal. */
    public static final class HookedServer {
        static final Server[] HOLDER = new Server[1];

        public static void main(String[] args) throws Exception {
            Server server = Server.builder().port(0).host("127.0.0.1").threads(1).shutdownHook(true)
                    .shutdownGrace(java.time.Duration.ofSeconds(60))
                    .post("/echo", (req, res) -> res.body(req.body()))
                    .get("/lent", (req, res) -> res.text(String.valueOf(HOLDER[0].metrics().lentBuffers)))
                    .start();
            HOLDER[0] = server;
            System.out.println("port " + server.port());
            System.out.flush();
            Thread.currentThread().join(); // until the JVM exits on SIGTERM
        }
    }

    @Test
    void sigtermClosesGracefullyAndTheStopLineIsPrinted() throws Exception {
        Path err = Files.createTempFile("peregrine-hook", ".err");
        try {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-Dperegrine.transport=" + transport,
                    "-cp", System.getProperty("java.class.path"),
                    HookedServer.class.getName())
                    .redirectError(err.toFile()).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
                String line = out.readLine();
                assertTrue(line != null && line.startsWith("port "), "child said: " + line + " / " + Files.readString(err));
                int port = Integer.parseInt(line.substring(5));
                try (RawClient busy = new RawClient(port)) {
                    busy.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello");
                    // The child's own metrics say when the partial request holds its buffer (under way).
                    try (RawClient probe = new RawClient(port)) {
                        Await.until("the request under way", () -> {
                            try {
                                probe.send("GET /lent HTTP/1.1\r\nHost: x\r\n\r\n");
                                return probe.read().text().equals("1");
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
                    }
                    p.destroy(); // SIGTERM
                    Await.until("the listener closed", () -> RawClient.refuses(port));
                    // The request in flight still gets its answer, marked as the last.
                    busy.send("world");
                    RawResponse r = busy.read();
                    assertEquals("helloworld", r.text());
                    assertEquals("close", r.header("Connection"));
                }
                assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child exits");
            } finally {
                p.destroyForcibly();
            }
            List<String> lines = Files.readAllLines(err);
            assertTrue(lines.stream().anyMatch(l -> l.matches("Peregrine on port \\d+ stopped in \\d+ ms")),
                    "stop line in: " + lines);
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
