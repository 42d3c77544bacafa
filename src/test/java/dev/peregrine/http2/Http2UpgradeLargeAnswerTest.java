package dev.peregrine.http2;

import dev.peregrine.Server;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The request of an {@code Upgrade: h2c} becomes stream 1 (RFC 7540 §3.2), answered over HTTP/2 right
 * after the 101: a large file on that stream, to many fresh JDK clients at once (each starts with the
 * upgrade), must arrive whole and the frame stream stay aligned.
 *
 * <p>Disabled: a known fault, open. About one run in two, one of the 40 JDK clients reports
 * {@code protocol error: Frame type(218) length(2221620) exceeds MAX_FRAME_SIZE(16384)}: the frame stream
 * of an upgraded connection loses alignment (seen on each transport). curl's upgrade ({@code --http2} on
 * {@code http://}, 40 at once, 120 transfers) and prior knowledge did not show it. Enable it to work on
 * the fix; docs/http2.md ("Known fault") says what was ruled out.
 */
class Http2UpgradeLargeAnswerTest {
    @Disabled("known fault: the upgraded connection's frame stream loses alignment now and then (docs/http2.md)")
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aLargeFileAnsweredOnTheUpgradesStreamArrivesWhole(String transport) throws Exception {
        Path dir = Files.createTempDirectory("h2-upgrade");
        byte[] content = new byte[3 << 20];
        new Random(3).nextBytes(content);
        Files.write(dir.resolve("big.bin"), content);
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .staticFiles("/static", dir).start()) {
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/static/big.bin");
            List<HttpClient> clients = new ArrayList<>();
            List<CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
                clients.add(client);
                answers.add(client.sendAsync(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofByteArray()));
            }
            for (CompletableFuture<HttpResponse<byte[]>> a : answers) {
                HttpResponse<byte[]> r = a.get();
                assertEquals(200, r.statusCode());
                assertEquals(HttpClient.Version.HTTP_2, r.version());
                assertArrayEquals(content, r.body());
            }
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }
}
