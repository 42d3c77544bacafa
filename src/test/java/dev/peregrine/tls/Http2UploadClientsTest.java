package dev.peregrine.tls;

import dev.peregrine.Completion;
import dev.peregrine.e2e.BodyDigest;
import dev.peregrine.Execution;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Large uploads over HTTP/2 from real clients, streamed to the handler as DATA arrives (a body above
 * {@code streamBodyThreshold}): the JDK HttpClient over TLS (ALPN h2; it sends a request body over h2c
 * only by prior knowledge, which it lacks), curl over TLS and by prior knowledge with
 * {@code --data-binary @file}, 8 MiB each, hashed by the server; and without a length (the JDK
 * client's {@code ofInputStream}, curl's {@code -T -} from stdin), streamed the same way: a blocking handler reading
 * {@code bodyStream()} and a {@code Handlers.streaming} listener on the loop. Every transport and TLS provider.
 */
class Http2UploadClientsTest {
    private static final int SIZE = 8 * 1024 * 1024;
    private static final byte[] BODY = new byte[SIZE];
    private static final String WANT;

    static {
        new java.util.Random(9113).nextBytes(BODY);
        try {
            WANT = SIZE + " " + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(BODY));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    static Stream<org.junit.jupiter.params.provider.Arguments> cases() {
        return TlsTesting.transportsAndProviders();
    }

    private static Server start(String transport, TlsConfig.Provider provider) {
        return Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .maxStreamedBodySize(64L * 1024 * 1024)
                .post("/sha", Execution.BLOCKING, (req, res) -> {
                    res.text(BodyDigest.of(req.bodyStream()) + " " + req.bodyStreamed() + " " + req.version());
                })
                .post("/listen-sha", Handlers.streaming((req, res) -> {
                    boolean streamed = req.bodyStreamed();
                    Completion done = res.async();
                    req.onBody(BodyDigest.listener(digest -> {
                        done.response().text(digest + " " + streamed + " " + done.request().version());
                        done.complete();
                    }));
                }))
                .https(0, TlsTesting.tls(provider).build()).start();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void jdkClientUploadsOverAlpnH2(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, provider)) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                    .sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate())).build();
            String base = "https://localhost:" + server.httpsPort();
            List<CompletableFuture<HttpResponse<String>>> both = new ArrayList<>();
            for (String path : new String[] {"/sha", "/listen-sha"}) { // two uploads at once on one connection
                both.add(client.sendAsync(HttpRequest.newBuilder(URI.create(base + path))
                        .POST(HttpRequest.BodyPublishers.ofByteArray(BODY)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            for (CompletableFuture<HttpResponse<String>> f : both) {
                HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
                assertEquals(HttpClient.Version.HTTP_2, r.version());
                assertEquals(200, r.statusCode(), r.body());
                assertEquals(WANT + " true HTTP/2.0", r.body());
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void curlUploadsOverTlsAndByPriorKnowledge(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, provider)) {
            Path ca = Files.createTempFile("h2-ca", ".pem");
            Path file = Files.createTempFile("h2-upload", ".bin");
            try {
                Files.writeString(ca, TlsTesting.CERT.certificatePem());
                Files.write(file, BODY);
                for (String path : new String[] {"/sha", "/listen-sha"}) {
                    assertEquals(WANT + " true HTTP/2.0 2", curl("--cacert", ca.toString(), "--http2", "-H", "Expect:",
                            "--data-binary", "@" + file, "-w", " %{http_version}", "https://localhost:" + server.httpsPort() + path));
                    assertEquals(WANT + " true HTTP/2.0 2", curl("--http2-prior-knowledge", "-H", "Expect:",
                            "--data-binary", "@" + file, "-w", " %{http_version}", "http://127.0.0.1:" + server.port() + path));
                }
            } finally {
                Files.delete(ca);
                Files.delete(file);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void uploadsWithoutALengthStreamToo(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, provider)) {
            // the JDK client sends no content-length for a body from an InputStream
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                    .sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate())).build();
            String base = "https://localhost:" + server.httpsPort();
            for (String path : new String[] {"/sha", "/listen-sha"}) {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(base + path))
                        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(BODY))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(HttpClient.Version.HTTP_2, r.version());
                assertEquals(200, r.statusCode(), r.body());
                assertEquals(WANT + " true HTTP/2.0", r.body(), path);
            }
            // curl -T - reads stdin: no content-length over HTTP/2, over TLS and by prior knowledge
            Path ca = Files.createTempFile("h2-ca", ".pem");
            Path file = Files.createTempFile("h2-upload", ".bin");
            try {
                Files.writeString(ca, TlsTesting.CERT.certificatePem());
                Files.write(file, BODY);
                for (String path : new String[] {"/sha", "/listen-sha"}) {
                    assertEquals(WANT + " true HTTP/2.0 2", curlFrom(file, "--cacert", ca.toString(), "--http2", "-H", "Expect:",
                            "-T", "-", "-X", "POST", "-w", " %{http_version}", "https://localhost:" + server.httpsPort() + path));
                    assertEquals(WANT + " true HTTP/2.0 2", curlFrom(file, "--http2-prior-knowledge", "-H", "Expect:",
                            "-T", "-", "-X", "POST", "-w", " %{http_version}", "http://127.0.0.1:" + server.port() + path));
                }
            } finally {
                Files.delete(ca);
                Files.delete(file);
            }
        }
    }

    private static String curl(String... args) throws Exception {
        return curlFrom(null, args);
    }

    /** curl with {@code args}, its stdin read from {@code input} (null: none). */
    private static String curlFrom(Path input, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-s", "-S"));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        if (input != null) {
            pb.redirectInput(input.toFile());
        }
        Process p = pb.start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "curl timed out");
        String text = new String(out.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "curl failed: " + text);
        return text;
    }
}
