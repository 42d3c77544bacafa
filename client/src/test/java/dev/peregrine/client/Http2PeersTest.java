package dev.peregrine.client;

import dev.peregrine.Transport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP/2 client against third-party HTTP/2 servers: the peer harness's Netty
 * ({@code Http2ConnectionHandler}, no MAX_CONCURRENT_STREAMS limit) and Jetty (h2c connector,
 * MAX_CONCURRENT_STREAMS 128) jars, {@code ../shared/peers/java/<name>/target/peer.jar}, each serving
 * {@code GET /plaintext} over h2c by prior knowledge. Skipped, saying so, where the jars are not built.
 */
class Http2PeersTest {
    private static Path jar(String name) {
        for (String up : new String[] {"../shared/peers", "../../shared/peers", "../../../shared/peers"}) {
            Path p = Path.of(up, "java", name, "target", "peer.jar").toAbsolutePath().normalize();
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** Waits until the peer accepts (its JVM starting), at most 30 s. */
    private static void awaitListening(int port, Process p) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < end) {
            assertTrue(p.isAlive(), () -> "the peer exited with " + p.exitValue());
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                Thread.onSpinWait();
                p.waitFor(50, TimeUnit.MILLISECONDS); // the peer's JVM is still starting
            }
        }
        throw new AssertionError("the peer did not listen on " + port + " within 30 s");
    }

    @ParameterizedTest
    @CsvSource({"netty-h2, NIO", "netty-h2, EPOLL", "jetty-h2c, NIO", "jetty-h2c, EPOLL"})
    void manyStreamsToAThirdPartyServer(String peer, Transport t) throws Exception {
        Path jar = jar(peer);
        Assumptions.assumeTrue(jar != null, "no " + peer + " peer jar (build ../shared/peers/h2bench.sh's peers)");
        int port = freePort();
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb = new ProcessBuilder(java, "-jar", jar.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("PORT", Integer.toString(port));
        pb.environment().put("THREADS", "1");
        Process p = pb.start();
        try (HttpClient client = HttpClient.builder().transport(t).http2(Http2Mode.PRIOR_KNOWLEDGE).build()) {
            awaitListening(port, p);
            String url = "http://127.0.0.1:" + port + "/plaintext";
            List<CompletableFuture<ClientResponse>> calls = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                calls.add(client.send(ClientRequest.get(url)));
            }
            for (CompletableFuture<ClientResponse> c : calls) {
                ClientResponse r = c.get(30, TimeUnit.SECONDS);
                assertEquals(200, r.status());
                assertEquals("Hello, World!", r.text());
                assertEquals("text/plain", r.header("content-type"));
            }
            assertEquals(404, client.get("http://127.0.0.1:" + port + "/nowhere").status());
            assertEquals(1001, client.metrics("127.0.0.1:" + port).responses.get());
        } finally {
            p.destroy();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
