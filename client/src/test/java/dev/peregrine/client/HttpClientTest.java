package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.ScriptedServer;
import dev.peregrine.testing.Transports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client against Peregrine and against a scripted server, on both transports. */
class HttpClientTest {
    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

    /** Every transport of the test kit's list, as the client builder takes it. */
    static Stream<Transport> transports() {
        return Transports.names().map(name -> Transport.valueOf(name.toUpperCase(Locale.ROOT)));
    }

    private static HttpClient client(Transport t) {
        return HttpClient.builder().transport(t).readTimeout(Duration.ofSeconds(10)).build();
    }

    @ParameterizedTest
    @MethodSource("transports")
    void talksToPeregrineAndReusesItsConnection(Transport t) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/hi", (req, res) -> res.text("hi " + req.query().get("n")))
                .post("/echo", (req, res) -> res.body(req.bodyBytes()))
                .start();
             HttpClient client = client(t)) {
            String base = "http://127.0.0.1:" + server.port();
            for (int i = 0; i < 5; i++) {
                ClientResponse r = client.get(base + "/hi?n=" + i);
                assertEquals(200, r.status());
                assertEquals("hi " + i, r.text());
            }
            byte[] big = new byte[300_000];
            java.util.Arrays.fill(big, (byte) 'x');
            ClientResponse echo = client.execute(ClientRequest.builder("POST", base + "/echo").body(big).build());
            assertEquals(300_000, echo.body().length);
            assertEquals(404, client.get(base + "/nowhere").status());
            assertEquals(1, server.metrics().accepted, "one keep-alive connection served every call");
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void idleConnectionsClosedByTheServerAreEvictedAndNeverHandedOut(Transport t) throws Exception {
        CountDownLatch answered = new CountDownLatch(2);
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            c.readRequest();
            c.write(OK);
            answered.countDown();
            if (n == 0) {
                c.socket.close(); // FIN right after the answer: the idle connection dies in the pool
            } else {
                c.reset(); // RST
            }
        }); HttpClient client = client(t)) {
            assertEquals("ok", client.get(server.url("/a")).text());
            assertEquals("ok", client.get(server.url("/b")).text());
            assertEquals("ok", client.get(server.url("/c")).text());
            assertEquals(3, server.accepted());
            assertEquals(0, client.metrics("127.0.0.1:" + server.port()).failures.get());
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void anHttp10ResponseWithoutKeepAliveEndsTheConnectionsReuse(Transport t) throws Exception {
        // RFC 9112 §9.3: the server may hold the connection open, but it persists only with keep-alive.
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            c.readRequest();
            c.write(n == 2 ? "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok"
                    : "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
            if (c.readRequest() != null) {
                c.write("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 6\r\n\r\nreused");
                c.readRequest();
            }
        }); HttpClient client = client(t)) {
            assertEquals("ok", client.get(server.url("/1")).text());
            assertEquals("ok", client.get(server.url("/2")).text(), "a new connection, not the 1.0 one");
            assertEquals("ok", client.get(server.url("/3")).text());
            assertEquals("reused", client.get(server.url("/4")).text(), "1.0 with keep-alive persists");
            assertEquals(3, server.accepted());
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aKeepAliveClosedBetweenRequestsIsRetriedForGetButNotForPost(Transport t) throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            c.readRequest();
            c.write(OK);
            // keep-alive as far as the client knows, but the server closes on the next request unanswered
            if (c.readRequest() != null) {
                c.socket.close();
            }
        }); HttpClient client = client(t)) {
            assertEquals("ok", client.get(server.url("/1")).text());
            assertEquals("ok", client.get(server.url("/2")).text(), "retried on a new connection unnoticed");
            ClientException e = assertThrows(ClientException.class,
                    () -> client.execute(ClientRequest.builder("POST", server.url("/3")).body("x").build()));
            assertEquals(ClientException.Phase.CLOSED, e.phase());
            assertTrue(e.getMessage().contains("127.0.0.1:" + server.port()), e.getMessage());
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void badResponsesFailTheirCallWithTheReasonAndTheOthersCarryOn(Transport t) throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            String head = c.readRequest();
            if (head.startsWith("GET /bad ")) {
                c.write("HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nok");
            } else if (head.startsWith("GET /short ")) {
                c.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nok");
                c.socket.close();
            } else if (head.startsWith("GET /big ")) {
                c.write("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n");
            } else {
                c.write(OK);
            }
        }); HttpClient client = client(t)) {
            ClientException bad = assertThrows(ClientException.class, () -> client.get(server.url("/bad")));
            assertEquals(ClientException.Phase.RESPONSE, bad.phase());
            ClientException shortBody = assertThrows(ClientException.class, () -> client.get(server.url("/short")));
            assertEquals(ClientException.Phase.CLOSED, shortBody.phase());
            ClientException big = assertThrows(ClientException.class, () -> client.get(server.url("/big")));
            assertEquals(ClientException.Phase.TOO_LARGE, big.phase());
            assertEquals("ok", client.get(server.url("/fine")).text());
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aPeerThatIsNotAnHttpServerIsRefusedAtItsFirstLineNotAtTheReadTimeout(Transport t) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            c.readRequest();
            c.write("SSH-2.0-OpenSSH_9.6\r\n"); // then silence, as an SSH server waits for the client's banner
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }); HttpClient client = HttpClient.builder().transport(t).readTimeout(Duration.ofSeconds(60))
                .totalTimeout(Duration.ofSeconds(120)).maxAttempts(1).build()) {
            ClientException e = assertThrows(ClientException.class, () -> client.get(server.url("/")));
            assertEquals(ClientException.Phase.RESPONSE, e.phase(), e.getMessage());
            assertTrue(e.getMessage().contains("malformed status line"), e.getMessage());
        } finally {
            release.countDown();
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void eachTimeoutNamesItsPhase(Transport t) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            c.readRequest();
            try {
                release.await(20, TimeUnit.SECONDS); // never answers while the test runs
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }); HttpClient client = HttpClient.builder().transport(t).readTimeout(Duration.ofMillis(2_000)) // far after the pool's
                .maxConnsPerHost(1).maxConnWait(Duration.ofMillis(200)).build()) {                          // wait, however slow the loop
            CompletableFuture<ClientResponse> first = client.send(ClientRequest.get(server.url("/slow")));
            ExecutionException waited = assertThrows(ExecutionException.class,
                    () -> client.send(ClientRequest.get(server.url("/queued"))).get(10, TimeUnit.SECONDS));
            assertEquals(ClientException.Phase.POOL, ((ClientException) waited.getCause()).phase());
            ExecutionException read = assertThrows(ExecutionException.class, () -> first.get(10, TimeUnit.SECONDS));
            assertEquals(ClientException.Phase.READ, ((ClientException) read.getCause()).phase());
        } finally {
            release.countDown();
        }
        try (HttpClient client = HttpClient.builder().transport(t).totalTimeout(Duration.ofMillis(300)).build();
             ScriptedServer server = new ScriptedServer((c, n) -> {
                 c.readRequest();
                 try {
                     release.await(20, TimeUnit.SECONDS);
                 } catch (InterruptedException e) {
                     Thread.currentThread().interrupt();
                 }
             })) {
            ClientException total = assertThrows(ClientException.class, () -> client.get(server.url("/slow")));
            assertEquals(ClientException.Phase.TOTAL, total.phase());
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void aRefusedConnectIsAConnectError(Transport t) throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (HttpClient client = client(t)) {
            ClientException e = assertThrows(ClientException.class, () -> client.get("http://127.0.0.1:" + port + "/"));
            assertEquals(ClientException.Phase.CONNECT, e.phase());
            assertEquals("127.0.0.1:" + port, e.host());
        }
    }

    @ParameterizedTest
    @MethodSource("transports")
    void httpsWithTheNameVerifiedAndLookedUpOffTheLoop(Transport t) throws Exception {
        dev.peregrine.tls.TlsConfig tls = dev.peregrine.tls.TlsConfig.selfSigned();
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).tls(tls)
                .get("/s", (req, res) -> res.text("secure")).start();
             HttpClient client = HttpClient.builder().transport(t).sslContext(TrustingContext.of(tls.certificate())).build()) {
            assertEquals("secure", client.get("https://localhost:" + server.httpsPort() + "/s").text());
            assertEquals("secure", client.get("https://localhost:" + server.httpsPort() + "/s").text());
            assertEquals(1, server.metrics().accepted);
        }
    }


    @ParameterizedTest
    @MethodSource("transports")
    void aConnectionReusedBackToBackStartsTheReadClockAgainForEachRequest(Transport t) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/x", (req, res) -> res.text("x")).start();
             HttpClient client = HttpClient.builder().transport(t).readTimeout(Duration.ofMillis(1_000)).maxConnsPerHost(1).build()) {
            ClientRequest request = ClientRequest.get("http://127.0.0.1:" + server.port() + "/x");
            CompletableFuture<Long> done = new CompletableFuture<>();
            // Each answer sends the next request from the loop, on the connection it just freed, until
            // well past several read timeouts in all: no request may time out, each got its answer at once.
            // The read timeout leaves a loaded machine a second per answer; the chain runs three of them.
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3_000);
            chain(client, request, until, 0, done);
            assertTrue(done.get(30, TimeUnit.SECONDS) > 10);
            assertEquals(1, server.metrics().accepted);
        }
    }

    private static void chain(HttpClient client, ClientRequest request, long untilNanos, long count, CompletableFuture<Long> done) {
        client.send(request).whenComplete((r, failure) -> {
            if (failure != null) {
                done.completeExceptionally(failure);
            } else if (System.nanoTime() - untilNanos < 0) {
                chain(client, request, untilNanos, count + 1, done);
            } else {
                done.complete(count + 1);
            }
        });
    }

    @Test
    void requestsAreCheckedAtTheCall() {
        assertThrows(IllegalArgumentException.class, () -> ClientRequest.get("ftp://x/"));
        assertThrows(IllegalArgumentException.class, () -> ClientRequest.builder("GET", "http://x/").header("X", "a\r\nb: c"));
        assertThrows(IllegalArgumentException.class, () -> ClientRequest.builder("GET", "http://x/").header("Host", "y"));
        assertThrows(IllegalArgumentException.class, () -> ClientRequest.builder("GE T", "http://x/"));
        assertInstanceOf(ClientRequest.class, ClientRequest.builder("PURGE", "http://x/a?b=c").build());
    }
}
