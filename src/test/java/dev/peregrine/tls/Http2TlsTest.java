package dev.peregrine.tls;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/2 over TLS: ALPN chooses h2 when the client offers it (and http/1.1 when it offers only
 * that), the JDK HttpClient and curl speak it, on every transport and TLS provider.
 */
class Http2TlsTest {
    static Stream<org.junit.jupiter.params.provider.Arguments> cases() {
        return TlsTesting.transportsAndProviders();
    }

    private static Server start(String transport, TlsConfig.Provider provider) {
        return PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .get("/h2/blocking", Execution.BLOCKING, (req, res) -> res.text("blocked " + req.version()))
                .get("/h2/async", (req, res) -> {
                    dev.peregrine.Completion later = res.async();
                    new Thread(() -> {
                        later.response().text("async " + later.request().version());
                        later.complete();
                    }).start();
                })
                .get("/h2/streamed", Execution.BLOCKING, (req, res) -> {
                    try (java.io.OutputStream out = res.outputStream()) {
                        out.write(("streamed " + req.version()).getBytes(StandardCharsets.US_ASCII));
                    }
                })
                .get("/h2/streamed-big", Execution.BLOCKING, (req, res) -> {
                    try (java.io.OutputStream out = res.outputStream()) { // past the stream window and the ring
                        for (int i = 0; i < 30_000; i++) {
                            out.write(("line " + i + "\n").getBytes(StandardCharsets.US_ASCII));
                        }
                    }
                })
                .https(0, TlsTesting.tls(provider).build()).start();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void jdkClientGetsH2ThroughAlpn(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, provider)) {
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
                    .sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate())).build();
            String base = "https://localhost:" + server.httpsPort();
            List<CompletableFuture<HttpResponse<String>>> many = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                HttpRequest r = i % 3 == 0
                        ? HttpRequest.newBuilder(URI.create(base + "/echo")).POST(HttpRequest.BodyPublishers.ofString("x".repeat(i * 1000))).build()
                        : HttpRequest.newBuilder(URI.create(base + (i % 3 == 1 ? "/plaintext" : i % 2 == 0 ? "/h2/blocking" : "/h2/async"))).build();
                many.add(client.sendAsync(r, HttpResponse.BodyHandlers.ofString()));
            }
            for (int i = 0; i < many.size(); i++) {
                HttpResponse<String> r = many.get(i).get(30, TimeUnit.SECONDS);
                assertEquals(HttpClient.Version.HTTP_2, r.version());
                assertEquals(200, r.statusCode());
                assertEquals(i % 3 == 0 ? "x".repeat(i * 1000) : i % 3 == 1 ? "Hello, World!"
                        : i % 2 == 0 ? "blocked HTTP/2.0" : "async HTTP/2.0", r.body());
            }
            // res.outputStream over HTTP/2: DATA as written, END_STREAM at close
            HttpResponse<String> streamed = client.send(HttpRequest.newBuilder(URI.create(base + "/h2/streamed-big")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(HttpClient.Version.HTTP_2, streamed.version());
            StringBuilder want = new StringBuilder();
            for (int i = 0; i < 30_000; i++) {
                want.append("line ").append(i).append('\n');
            }
            assertEquals(want.toString(), streamed.body());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void curlOverTlsAndItsRetryOverHttp11(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, provider)) {
            Path ca = Files.createTempFile("h2-ca", ".pem");
            Files.writeString(ca, TlsTesting.CERT.certificatePem());
            try {
                String base = "https://localhost:" + server.httpsPort();
                assertEquals("Hello, World! 2", curl("--cacert", ca.toString(), "--http2", "-w", " %{http_version}", base + "/plaintext"));
                assertEquals("blocked HTTP/2.0 2", curl("--cacert", ca.toString(), "--http2", "-w", " %{http_version}", base + "/h2/blocking"));
                assertEquals("async HTTP/2.0 2", curl("--cacert", ca.toString(), "--http2", "-w", " %{http_version}", base + "/h2/async"));
                assertEquals("streamed HTTP/2.0 2", curl("--cacert", ca.toString(), "--http2", "-w", " %{http_version}", base + "/h2/streamed"));
            } finally {
                Files.delete(ca);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void clientOfferingOnlyHttp11GetsHttp11(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, provider)) {
            SSLSocket s = (SSLSocket) TlsTesting.clientContext(TlsTesting.CERT.certificate()).getSocketFactory()
                    .createSocket("127.0.0.1", server.httpsPort());
            s.setSoTimeout(20_000);
            SSLParameters p = s.getSSLParameters();
            p.setApplicationProtocols(new String[] {"http/1.1"});
            s.setSSLParameters(p);
            s.startHandshake();
            assertEquals("http/1.1", s.getApplicationProtocol());
            s.getOutputStream().write("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            String response = RawResponse.read(s.getInputStream()).wire();
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
            s.close();
        }
    }

    private static String curl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-s"));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "curl timed out");
        String text = new String(out.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "curl failed: " + text);
        return text;
    }
}
