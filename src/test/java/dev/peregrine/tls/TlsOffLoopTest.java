package dev.peregrine.tls;

import dev.peregrine.Handlers;
import dev.peregrine.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Off-loop handlers and streamed bodies over HTTPS: the TLS endpoint cannot send files directly, so
 * {@code sendFile} goes through the loop's buffers; streams go through the same record layer.
 */
class TlsOffLoopTest {
    @TempDir
    Path dir;

    @Test
    void sendFileStreamsAndBlockingUploadsOverTls() throws Exception {
        byte[] content = new byte[6 * 1024 * 1024 + 17];
        new Random(9).nextBytes(content);
        Path file = dir.resolve("f.bin");
        Files.write(file, content);
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1)
                .streamBodyThreshold(64 * 1024)
                .get("/file", (req, res) -> res.sendFile(file))
                .get("/stream", Handlers.blocking((req, res) -> {
                    OutputStream out = res.outputStream();
                    for (int off = 0; off < content.length; off += 100_000) {
                        out.write(content, off, Math.min(100_000, content.length - off));
                    }
                }))
                .post("/digest", Handlers.blocking((req, res) -> {
                    MessageDigest md = MessageDigest.getInstance("SHA-256");
                    try (InputStream in = req.bodyStream()) {
                        byte[] buf = new byte[50_000];
                        int n;
                        while ((n = in.read(buf)) >= 0) {
                            md.update(buf, 0, n);
                        }
                    }
                    res.body(md.digest());
                }))
                .tls(TlsTesting.tls(TlsConfig.Provider.JDK).build())
                .start()) {
            HttpClient client = HttpClient.newBuilder()
                    .sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate()))
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(20))
                    .build();
            URI base = URI.create("https://localhost:" + server.port());
            for (String path : new String[] {"/file", "/stream"}) {
                HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(base.resolve(path)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertEquals(200, r.statusCode(), path);
                assertArrayEquals(content, r.body(), path);
            }
            HttpResponse<byte[]> d = client.send(HttpRequest.newBuilder(base.resolve("/digest"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(content)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, d.statusCode());
            assertEquals(Arrays.toString(MessageDigest.getInstance("SHA-256").digest(content)), Arrays.toString(d.body()));
        }
    }
}
