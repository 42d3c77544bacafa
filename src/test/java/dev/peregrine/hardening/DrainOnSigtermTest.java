package dev.peregrine.hardening;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a Kubernetes pod sees on SIGTERM, in a child JVM: readiness answers 503 at once, the server
 * keeps serving new connections for {@code drainDelay}, then stops, and the stop line is printed.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class DrainOnSigtermTest {
    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;

    /** The child: hook, drain delay, health endpoints; its port on stdout. */
    public static final class DrainingServer {
        public static void main(String[] args) throws Exception {
            Server server = Server.builder().port(0).host("127.0.0.1").threads(1).shutdownHook(true)
                    .drainDelay(Duration.ofSeconds(5))
                    .get("/hello", (req, res) -> res.text("hi"))
                    .healthEndpoints("/health/live", "/health/ready")
                    .start();
            System.out.println("port " + server.port());
            System.out.flush();
            Thread.currentThread().join();
        }
    }

    private static int status(int port, String path) {
        try (RawClient w = new RawClient(port)) {
            w.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n");
            return w.read().status;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void sigtermTurnsReadinessFirstThenStops() throws Exception {
        Path err = Files.createTempFile("peregrine-drain", ".err");
        try {
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-Dperegrine.transport=" + transport,
                    "-cp", System.getProperty("java.class.path"),
                    DrainingServer.class.getName())
                    .redirectError(err.toFile()).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.US_ASCII));
                String line = out.readLine();
                assertTrue(line != null && line.startsWith("port "), "child said: " + line + " / " + Files.readString(err));
                int port = Integer.parseInt(line.substring(5));
                assertEquals(200, status(port, "/health/ready"));
                p.destroy(); // SIGTERM
                Await.until("readiness 503 after SIGTERM", () -> status(port, "/health/ready") == 503);
                // Still serving during the drain: a new connection is accepted and answered.
                assertEquals(200, status(port, "/hello"));
                assertTrue(p.isAlive(), "still draining");
                Await.until("the listener closed after the drain", () -> RawClient.refuses(port));
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
