package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.tls.TlsConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP/2 client against Peregrine's own HTTP/2 server over real sockets, on NIO and epoll: h2c by
 * prior knowledge, h2 by ALPN and the fall back to HTTP/1.1 when the server does not choose h2, many
 * streams at once on one connection, bodies far larger than the windows both ways, a refused stream
 * sent again over HTTP/1.1.
 */
class Http2ClientTest {
    private static Server.Builder server(Transport t) {
        return Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).http2(true)
                .get("/v", (req, res) -> res.text(req.version() + " " + req.host() + " " + req.query().get("n")))
                .post("/echo", (req, res) -> res.body(req.bodyBytes()))
                .get("/big", (req, res) -> res.body(big(5_000_000)));
    }

    static byte[] big(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    private static HttpClient.Builder client(Transport t) {
        return HttpClient.builder().transport(t).readTimeout(Duration.ofSeconds(10)).http2(Http2Mode.PRIOR_KNOWLEDGE);
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void manyStreamsAtOnceOnOneConnection(Transport t) throws Exception {
        try (Server s = server(t).start(); HttpClient client = client(t).build()) {
            String base = "http://127.0.0.1:" + s.port();
            List<CompletableFuture<ClientResponse>> calls = new ArrayList<>();
            for (int i = 0; i < 500; i++) { // five times the server's MAX_CONCURRENT_STREAMS: the rest queue
                calls.add(client.send(ClientRequest.get(base + "/v?n=" + i)));
            }
            for (int i = 0; i < calls.size(); i++) {
                ClientResponse r = calls.get(i).get(30, TimeUnit.SECONDS);
                assertEquals(200, r.status());
                assertEquals("HTTP/2.0 127.0.0.1:" + s.port() + " " + i, r.text());
                assertEquals("", r.reason(), "HTTP/2 has no reason phrase");
                assertEquals("text/plain; charset=utf-8", r.header("Content-Type"));
            }
            assertEquals(1, s.metrics().accepted, "one connection carried every stream");
            assertEquals(500, client.metrics("127.0.0.1:" + s.port()).responses.get());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void bodiesLargerThanTheWindowsBothWays(Transport t) throws Exception {
        try (Server s = server(t).maxBodySize(8_000_000).start(); HttpClient client = client(t).build()) {
            String base = "http://127.0.0.1:" + s.port();
            byte[] up = big(3_000_000); // 45 times the server's initial window of 65,535 (then 256 KiB)
            List<CompletableFuture<ClientResponse>> calls = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                calls.add(client.send(ClientRequest.builder("POST", base + "/echo").body(up).build()));
                calls.add(client.send(ClientRequest.get(base + "/big")));
            }
            for (int i = 0; i < calls.size(); i++) {
                ClientResponse r = calls.get(i).get(60, TimeUnit.SECONDS);
                assertEquals(200, r.status());
                assertArrayEquals(i % 2 == 0 ? up : big(5_000_000), r.body());
            }
            assertEquals(1, s.metrics().accepted);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void alpnChoosesH2AndAServerWithoutItGetsHttp11(Transport t) throws Exception {
        TlsConfig tls = TlsConfig.selfSigned();
        try (Server h2 = server(t).tls(tls).start();
             Server h1 = server(t).http2(false).tls(tls).start();
             Server plain = server(t).start();
             HttpClient client = client(t).http2(Http2Mode.ALPN).sslContext(TrustingContext.of(tls.certificate())).build()) {
            for (int i = 0; i < 3; i++) {
                assertEquals("HTTP/2.0 localhost:" + h2.httpsPort() + " " + i,
                        client.get("https://localhost:" + h2.httpsPort() + "/v?n=" + i).text());
                assertEquals("HTTP/1.1 localhost:" + h1.httpsPort() + " " + i,
                        client.get("https://localhost:" + h1.httpsPort() + "/v?n=" + i).text());
            }
            // ALPN mode leaves plain http on HTTP/1.1.
            assertEquals("HTTP/1.1 127.0.0.1:" + plain.port() + " x", client.get("http://127.0.0.1:" + plain.port() + "/v?n=x").text());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aStreamRefusedWithHttp11RequiredIsSentAgainOverHttp11(Transport t) throws Exception {
        // Peregrine's server (today) refuses a blocking route's stream with RST_STREAM HTTP_1_1_REQUIRED.
        try (Server s = server(t).get("/blocking", dev.peregrine.Execution.BLOCKING, (req, res) -> res.text("over " + req.version()))
                .start(); HttpClient client = client(t).build()) {
            String base = "http://127.0.0.1:" + s.port();
            String answer = client.get(base + "/blocking").text();
            assertTrue(answer.equals("over HTTP/1.1") || answer.equals("over HTTP/2.0"), answer);
            assertEquals("HTTP/2.0 127.0.0.1:" + s.port() + " 1", client.get(base + "/v?n=1").text());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aResponseLargerThanTheLimitFailsThatCallAlone(Transport t) throws Exception {
        try (Server s = server(t).start(); HttpClient client = client(t).maxResponseBodySize(1_000_000).build()) {
            String base = "http://127.0.0.1:" + s.port();
            ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                    () -> client.send(ClientRequest.get(base + "/big")).get(30, TimeUnit.SECONDS));
            ClientException ce = assertInstanceOf(ClientException.class, e.getCause());
            assertEquals(ClientException.Phase.TOO_LARGE, ce.phase());
            assertEquals("HTTP/2.0 127.0.0.1:" + s.port() + " 2", client.get(base + "/v?n=2").text());
            assertEquals(1, s.metrics().accepted, "the stream was cancelled, the connection went on");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void theReusePathFillsTheCallersResponse(Transport t) throws Exception {
        try (Server s = server(t).start(); HttpClient client = client(t).build()) {
            ReusableResponse r = new ReusableResponse();
            CompletableFuture<String> done = new CompletableFuture<>();
            client.send(ClientRequest.get("http://127.0.0.1:" + s.port() + "/v?n=r"), r, (resp, failure) ->
                    done.complete(failure != null ? failure.toString() : resp.status() + " " + resp.text()
                            + " " + resp.header("content-length")));
            assertEquals("200 HTTP/2.0 127.0.0.1:" + s.port() + " r " + ("HTTP/2.0 127.0.0.1:" + s.port() + " r").length(),
                    done.get(10, TimeUnit.SECONDS));
            assertTrue(Arrays.asList(r.headerName(0), r.headerName(1)).contains("server") || r.headerCount() > 0);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void theBalancerMixesAnH2AndAnHttp11Upstream(Transport t) throws Exception {
        try (Server h2 = server(t).start();
             Server h1 = server(t).http2(false).start();
             HttpClient client = client(t).build(); // prior knowledge: the HTTP/1.1-only server's answer to the preface moves it to HTTP/1.1
             BalancingClient lb = BalancingClient.builder()
                     .upstream("http://127.0.0.1:" + h2.port(), client)
                     .upstream("http://127.0.0.1:" + h1.port(), client)
                     .build()) {
            java.util.Map<String, Integer> versions = new java.util.TreeMap<>();
            List<CompletableFuture<ClientResponse>> calls = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                calls.add(lb.send(ClientRequest.get("http://upstream/v?n=" + i)));
            }
            for (CompletableFuture<ClientResponse> c : calls) {
                ClientResponse r = c.get(30, TimeUnit.SECONDS);
                assertEquals(200, r.status());
                versions.merge(r.text().split(" ")[0], 1, Integer::sum);
            }
            assertEquals(java.util.Set.of("HTTP/1.1", "HTTP/2.0"), versions.keySet(), versions.toString());
            assertEquals(1, h2.metrics().accepted, "the h2 upstream's calls shared one connection");
        }
    }
}
