package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.testing.Await;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Dialer#inMemory}: the client and a {@link Server} of the same JVM over no socket, through the
 * same connection layer, on each transport (client and server loops of that transport). After each
 * scenario every pooled buffer of both sides is back.
 */
class InMemoryDialerTest {
    private static final int MIB = 1024 * 1024;

    private static Server.Builder app(Transport t) {
        return Server.builder().host("127.0.0.1").port(0).threads(2).transport(t)
                .get("/hi", (req, res) -> res.text("hi " + req.query().get("n") + " " + req.header("Host")))
                .post("/echo", (req, res) -> res.contentType("application/octet-stream").body(req.bodyBytes()))
                .get("/big", (req, res) -> res.contentType("application/octet-stream").body(bytes(MIB, 7)));
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static ClientException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(ClientException.class, e.getCause());
    }

    private static void assertNothingLent(Server server, HttpClient client) {
        Await.until("every pooled buffer back on both sides", () -> {
            long lent = server.metrics().lentBuffers;
            for (LoopContext ctx : client.loops()) {
                lent += ctx.pool().lentCount();
            }
            return lent == 0;
        });
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void pooledPipelinedAndReusedCallsReachTheServerWithNoSocket(Transport t) throws Exception {
        try (Server server = app(t).start();
             HttpClient client = HttpClient.builder().transport(t).dialer(Dialer.inMemory(server)).build();
             PipelineClient pipe = PipelineClient.on(client).maxConns(1).build()) {
            for (int i = 0; i < 3; i++) {
                assertEquals("hi " + i + " app.local", client.get("http://app.local/hi?n=" + i).text());
            }
            assertEquals(1, server.metrics().accepted, "one kept-alive in-memory connection");

            List<CompletableFuture<ClientResponse>> pipelined = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                pipelined.add(pipe.send(ClientRequest.get("http://app.local/hi?n=p" + i)));
            }
            for (int i = 0; i < 20; i++) {
                assertEquals("hi p" + i + " app.local", pipelined.get(i).get(30, TimeUnit.SECONDS).text());
            }
            assertEquals(2, server.metrics().accepted, "the pipeline's one connection beside the pool's");

            ReusableResponse reused = new ReusableResponse();
            for (int i = 0; i < 3; i++) {
                CompletableFuture<String> answer = new CompletableFuture<>();
                client.send(ClientRequest.get("http://app.local/hi?n=r" + i), reused,
                        (r, failure) -> answer.complete(failure != null ? failure.toString() : r.status() + " " + r.text()));
                assertEquals("200 hi r" + i + " app.local", answer.get(30, TimeUnit.SECONDS));
            }
            assertNothingLent(server, client);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aMebibyteGoesBothWaysThroughTheRingsBackpressure(Transport t) throws Exception {
        try (Server server = app(t).maxBodySize(2 * MIB).start();
             HttpClient client = HttpClient.builder().transport(t).dialer(Dialer.inMemory(server)).build();
             PipelineClient pipe = PipelineClient.on(client).build()) {
            byte[] up = bytes(MIB, 1);
            ClientRequest post = ClientRequest.builder("POST", "http://app.local/echo").body(up).build();
            assertArrayEquals(up, client.send(post).get(30, TimeUnit.SECONDS).body());
            assertArrayEquals(bytes(MIB, 7), client.get("http://app.local/big").body());
            assertArrayEquals(up, pipe.send(post).get(30, TimeUnit.SECONDS).body());
            assertNothingLent(server, client);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aSilentHandlerTimesOutAndAServerStoppingMidCallEndsItTyped(Transport t) throws Exception {
        AtomicInteger arrived = new AtomicInteger();
        Server server = app(t).shutdownGrace(Duration.ofMillis(200))
                .get("/never", (req, res) -> {
                    res.async(); // never completed: the response never comes
                    arrived.incrementAndGet();
                })
                .start();
        try (HttpClient client = HttpClient.builder().transport(t).dialer(Dialer.inMemory(server))
                .readTimeout(Duration.ofMillis(300)).build();
             HttpClient patient = HttpClient.builder().transport(t).dialer(Dialer.inMemory(server)).maxAttempts(1).build()) {
            ClientException read = failure(client.send(ClientRequest.get("http://app.local/never")));
            assertEquals(ClientException.Phase.READ, read.phase());
            assertEquals("app.local:80", read.host());

            CompletableFuture<ClientResponse> midCall = patient.send(ClientRequest.get("http://app.local/never"));
            Await.until("the handler has the second call", () -> arrived.get() == 2);
            server.close();
            ClientException stopped = failure(midCall);
            assertEquals("app.local:80", stopped.host());
            assertTrue(stopped.getMessage().contains("closed by the server before the response"), stopped.toString());

            ClientException closed = failure(patient.send(ClientRequest.get("http://app.local/hi?n=1")));
            assertEquals(ClientException.Phase.CONNECT, closed.phase());
            assertTrue(closed.getMessage().contains("has closed"), closed.getMessage());
            for (LoopContext ctx : patient.loops()) {
                Await.until("the client's buffers back", () -> ctx.pool().lentCount() == 0);
            }
        } finally {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void httpsUrlsGoToTheTlsListenerWithTheNameVerified(Transport t) throws Exception {
        dev.peregrine.tls.TlsConfig tls = dev.peregrine.tls.TlsConfig.selfSigned();
        try (Server server = app(t).https(0, tls).start();
             Server plainOnly = app(t).start();
             HttpClient client = HttpClient.builder().transport(t).sslContext(TrustingContext.of(tls.certificate()))
                     .dialer(Dialer.inMemory(server)).build();
             HttpClient toPlain = HttpClient.builder().transport(t).sslContext(TrustingContext.of(tls.certificate()))
                     .dialer(Dialer.inMemory(plainOnly)).build()) {
            assertEquals("hi s localhost", client.get("https://localhost/hi?n=s").text());
            assertEquals("hi p localhost", client.get("http://localhost/hi?n=p").text());
            ClientException wrongName = failure(client.send(ClientRequest.get("https://other.test/hi?n=x")));
            assertEquals("other.test:443", wrongName.host(), wrongName.toString());
            ClientException noTls = failure(toPlain.send(ClientRequest.get("https://localhost/hi?n=x")));
            assertTrue(noTls.getMessage().contains("serves no https"), noTls.getMessage());
            assertNothingLent(server, client);
        }
    }
}
