package dev.peregrine.tls;

import dev.peregrine.Server;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLParameters;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Real clients over HTTPS: the JDK HttpClient and curl, TLS 1.2 and 1.3, both providers, every transport. */
class TlsClientsTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsProvidersProtocols")
    void httpClientGetsAndEchoesFourMebibytes(String transport, TlsConfig.Provider provider, String protocol) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build())) {
            SSLParameters params = new SSLParameters();
            params.setProtocols(new String[]{protocol});
            HttpClient client = HttpClient.newBuilder()
                    .sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate()))
                    .sslParameters(params)
                    .version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(20))
                    .build();
            URI base = URI.create("https://localhost:" + server.httpsPort());
            for (int i = 0; i < 3; i++) { // the same kept-alive connection
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(base.resolve("/plaintext")).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode());
                assertEquals("Hello, World!", r.body());
                assertEquals(protocol, r.sslSession().orElseThrow().getProtocol());
            }
            byte[] body = new byte[4 * 1024 * 1024];
            new Random(42).nextBytes(body);
            HttpResponse<byte[]> echo = client.send(HttpRequest.newBuilder(base.resolve("/echo"))
                    .header("Content-Type", "application/octet-stream")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, echo.statusCode());
            assertArrayEquals(body, echo.body());
            // the plaintext port still speaks plain HTTP
            HttpResponse<String> plain = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/plaintext")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("Hello, World!", plain.body());
        }
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsProvidersProtocols")
    void curlNegotiatesAlpnAndEchoes(String transport, TlsConfig.Provider provider, String protocol) throws Exception {
        Path ca = dir.resolve("ca.pem");
        TlsTesting.CERT.writeCertificate(ca);
        Path body = dir.resolve("body.bin");
        byte[] data = new byte[4 * 1024 * 1024];
        new Random(7).nextBytes(data);
        Files.write(body, data);
        Path out = dir.resolve("out.bin");
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build())) {
            String url = "https://localhost:" + server.httpsPort();
            List<String> version = protocol.equals("TLSv1.2") ? List.of("--tlsv1.2", "--tls-max", "1.2") : List.of("--tlsv1.3");
            Result get = curl(version, "-v", "--cacert", ca.toString(), url + "/plaintext", url + "/json");
            assertEquals(0, get.exit, get.err);
            assertEquals("Hello, World!{\"message\":\"Hello, World!\"}", get.out);
            assertTrue(get.err.contains("ALPN: server accepted http/1.1"), get.err);
            assertTrue(get.err.contains(protocol.equals("TLSv1.2") ? "TLSv1.2 (IN)" : "TLSv1.3 (IN)"), get.err);
            assertTrue(get.err.contains("Re-using existing connection") || get.err.contains("Reusing existing"), get.err);
            Result post = curl(version, "-sS", "--cacert", ca.toString(), "--data-binary", "@" + body,
                    "-H", "Content-Type: application/octet-stream", "-o", out.toString(), url + "/echo");
            assertEquals(0, post.exit, post.err);
            assertArrayEquals(data, Files.readAllBytes(out));
        }
    }

    private static final class Result {
        int exit;
        String out;
        String err;
    }

    private Result curl(List<String> version, String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add("curl");
        cmd.addAll(version);
        cmd.addAll(List.of("--max-time", "60", "--http1.1"));
        cmd.addAll(List.of(args));
        Path stdout = Files.createTempFile(dir, "curl", ".out");
        Path stderr = Files.createTempFile(dir, "curl", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        assertTrue(p.waitFor(90, TimeUnit.SECONDS), "curl did not finish");
        Result r = new Result();
        r.exit = p.exitValue();
        r.out = Files.readString(stdout, StandardCharsets.ISO_8859_1);
        r.err = Files.readString(stderr, StandardCharsets.ISO_8859_1);
        return r;
    }
}
