package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.ScriptedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The reuse path ({@code send(request, reusableResponse, callback)}) against Peregrine, on both transports. */
class ReusableResponseTest {
    private static Server server(Transport t) {
        return Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/n", (req, res) -> res.header("X-N", req.query().get("n")).text("n=" + req.query().get("n")))
                .get("/big", (req, res) -> res.text("b".repeat(Integer.parseInt(req.query().get("size")))))
                .get("/moved", (req, res) -> res.status(302).header("Location", "/n?n=moved").text(""))
                .start();
    }

    /** Sends on the reuse path and waits; returns the failure or null. */
    private static ClientException send(HttpSender s, String url, ReusableResponse r) throws Exception {
        CompletableFuture<ClientException> done = new CompletableFuture<>();
        s.send(ClientRequest.get(url), r, (resp, failure) -> {
            assertSame(r, resp);
            done.complete(failure);
        });
        return done.get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void oneObjectTakesResponseAfterResponseGrowingOnlyForALargerOne(Transport t) throws Exception {
        try (Server server = server(t); HttpClient client = HttpClient.builder().transport(t).build()) {
            String base = "http://127.0.0.1:" + server.port();
            ReusableResponse r = new ReusableResponse();
            assertEquals(0, r.status());
            assertNull(send(client, base + "/n?n=1", r));
            assertEquals(200, r.status());
            assertEquals("OK", r.reason());
            assertEquals("1", r.header("x-n"));
            assertEquals("n=1", r.text());
            ByteBuffer view = r.body();
            assertTrue(view.isReadOnly());
            assertEquals(3, view.remaining());
            String kept = r.headerValue(indexOf(r, "X-N"));

            assertNull(send(client, base + "/big?size=100000", r)); // larger than the arrays so far: they grow
            assertEquals(100_000, r.bodyLength());
            assertEquals('b', r.body().get(99_999));
            assertNull(r.header("X-N"), "no field left over from the previous response");
            assertEquals("1", kept, "Strings handed out stay as they were");

            ClientResponse copy = r.toResponse();
            assertNull(send(client, base + "/n?n=22", r));
            assertEquals("n=22", r.text());
            assertSame(view.getClass(), r.body().getClass());
            assertEquals(100_000, copy.body().length, "the copy is independent of the next call");
            assertEquals(1, server.metrics().accepted, "one keep-alive connection for every call");
        }
    }

    private static int indexOf(ReusableResponse r, String name) {
        for (int i = 0; i < r.headerCount(); i++) {
            if (r.headerName(i).equalsIgnoreCase(name)) {
                return i;
            }
        }
        throw new AssertionError("no field " + name);
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void pipelinedCallsFillTheirOwnObjectInOrder(Transport t) throws Exception {
        try (Server server = server(t); HttpClient http = HttpClient.builder().transport(t).build();
             PipelineClient pipe = PipelineClient.on(http).maxPending(64).build()) {
            String base = "http://127.0.0.1:" + server.port();
            int n = 50;
            List<CompletableFuture<String>> answers = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                CompletableFuture<String> f = new CompletableFuture<>();
                answers.add(f);
                pipe.send(ClientRequest.get(base + "/n?n=" + i), new ReusableResponse(),
                        (resp, failure) -> f.complete(failure != null ? failure.toString() : resp.text()));
            }
            for (int i = 0; i < n; i++) {
                assertEquals("n=" + i, answers.get(i).get(10, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void anObjectStillInACallIsRefusedAtTheCall() throws Exception {
        try (ScriptedServer slow = new ScriptedServer((c, n) -> {
            c.readRequest();
            c.readRequest(); // never answers: the first call stays in flight
        }); HttpClient client = HttpClient.builder().build();
             PipelineClient pipe = PipelineClient.on(client).build()) {
            ReusableResponse r = new ReusableResponse();
            client.send(ClientRequest.get(slow.url("/")), r, (resp, failure) -> { });
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> client.send(ClientRequest.get(slow.url("/")), r, (resp, failure) -> { }));
            assertTrue(e.getMessage().contains("still in a call"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> pipe.send(ClientRequest.get(slow.url("/")), r, (resp, failure) -> { }));
            assertThrows(IllegalArgumentException.class, () -> client.send(ClientRequest.get(slow.url("/")), null, (resp, f) -> { }));
            assertThrows(IllegalArgumentException.class, () -> client.send(ClientRequest.get(slow.url("/")), new ReusableResponse(), null));
        }
    }

    @Test
    void aFailureEmptiesTheObjectAndNamesThePhase() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        try (HttpClient client = HttpClient.builder().build()) {
            ReusableResponse r = new ReusableResponse();
            ClientException e = send(client, "http://127.0.0.1:" + port + "/", r);
            assertEquals(ClientException.Phase.CONNECT, e.phase());
            assertEquals(0, r.status());
            assertEquals(0, r.bodyLength());
            client.close();
            ClientException closed = send(client, "http://127.0.0.1:" + port + "/", r);
            assertEquals(ClientException.Phase.SHUTDOWN, closed.phase(), "the object is free again after a failure");
        }
    }

    @Test
    void aCallbackThatThrowsIsLoggedAndTheLoopGoesOn() throws Exception {
        try (Server server = server(Transport.NIO); HttpClient client = HttpClient.builder().build()) {
            String base = "http://127.0.0.1:" + server.port();
            ReusableResponse r = new ReusableResponse();
            CompletableFuture<Void> threw = new CompletableFuture<>();
            client.send(ClientRequest.get(base + "/n?n=1"), r, (resp, failure) -> {
                threw.complete(null);
                throw new IllegalStateException("a bug in the caller's callback");
            });
            threw.get(10, TimeUnit.SECONDS);
            assertNull(send(client, base + "/n?n=2", r));
            assertEquals("n=2", r.text());
        }
    }

    @Test
    void redirectsAndBalancersAnswerThroughTheSameCall() throws Exception {
        try (Server server = server(Transport.NIO);
             HttpClient following = HttpClient.builder().followRedirects(2).build();
             HttpClient plain = HttpClient.builder().build()) {
            String base = "http://127.0.0.1:" + server.port();
            ReusableResponse r = new ReusableResponse();
            assertNull(send(following, base + "/moved", r));
            assertEquals("n=moved", r.text(), "the redirect was followed");
            assertNull(send(plain, base + "/moved", r));
            assertEquals(302, r.status(), "off by default: the 3xx is the answer");
            BalancingClient lb = BalancingClient.builder().upstream(base, plain).build();
            assertNull(send(lb, "http://service/n?n=lb", r));
            assertEquals("n=lb", r.text());
            assertFalse(r.toString().isEmpty());
        }
    }
}
