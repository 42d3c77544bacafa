package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.ScriptedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The pipelining client against Peregrine and against scripted servers, on both transports. */
class PipelineClientTest {
    private static HttpClient http(Transport t) {
        return HttpClient.builder().transport(t).readTimeout(Duration.ofSeconds(10)).build();
    }

    private static String ok(String body) {
        return "HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    /** The path of a request head read by a scripted server. */
    private static String path(String head) {
        return head.split(" ")[1];
    }

    private static ClientResponse get(CompletableFuture<ClientResponse> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    private static ClientException failure(CompletableFuture<ClientResponse> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        return (ClientException) e.getCause();
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void thousandsOfRequestsOnOneConnectionToPeregrineComeBackInOrder(Transport t) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i")))
                .post("/echo", (req, res) -> res.body(req.bodyBytes()))
                .start();
             HttpClient http = http(t);
             PipelineClient pipe = PipelineClient.on(http).maxPending(4096).build()) {
            String base = "http://127.0.0.1:" + server.port();
            List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                fs.add(i % 100 == 7
                        ? pipe.send(ClientRequest.builder("POST", base + "/echo").body("body " + i).build())
                        : pipe.send(ClientRequest.get(base + "/n?i=" + i)));
            }
            for (int i = 0; i < fs.size(); i++) {
                assertEquals(i % 100 == 7 ? "body " + i : "n=" + i, get(fs.get(i)).text());
            }
            assertEquals(1, server.metrics().accepted, "one connection carried them all");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void requestsAreInFlightTogetherBeforeTheFirstAnswer(Transport t) throws Exception {
        // The server reads all five requests before it answers any: only a pipelining client gets answers.
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            StringBuilder answers = new StringBuilder();
            for (int i = 0; i < 5; i++) {
                answers.append(ok(path(c.readRequest())));
            }
            c.write(answers.toString()); // five responses in one segment
            while (c.readRequest() != null) {
                c.write(ok("later"));
            }
        }); HttpClient http = http(t); PipelineClient pipe = PipelineClient.on(http).build()) {
            List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                fs.add(pipe.send(ClientRequest.get(server.url("/r" + i))));
            }
            for (int i = 0; i < 5; i++) {
                assertEquals("/r" + i, get(fs.get(i)).text());
            }
            assertEquals("later", get(pipe.send(ClientRequest.get(server.url("/again")))).text());
            assertEquals(1, server.accepted());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aServerAnsweringSlowlyByteByByteIsMatchedInOrder(Transport t) throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            List<String> paths = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                paths.add(path(c.readRequest()));
            }
            StringBuilder all = new StringBuilder();
            for (String p : paths) {
                all.append(p.endsWith("chunked")
                        ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: v\r\n\r\n"
                        : "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok(p));
            }
            for (int i = 0; i < all.length(); i++) {
                c.write(String.valueOf(all.charAt(i))); // one byte per segment
            }
        }); HttpClient http = http(t); PipelineClient pipe = PipelineClient.on(http).build()) {
            CompletableFuture<ClientResponse> a = pipe.send(ClientRequest.get(server.url("/a")));
            CompletableFuture<ClientResponse> b = pipe.send(ClientRequest.get(server.url("/chunked")));
            CompletableFuture<ClientResponse> c = pipe.send(ClientRequest.get(server.url("/c")));
            CompletableFuture<ClientResponse> d = pipe.send(ClientRequest.get(server.url("/d")));
            assertEquals("/a", get(a).text());
            assertEquals("abc", get(b).text());
            assertEquals("/c", get(c).text());
            assertEquals("/d", get(d).text());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aServerClosingMidPipelineRetriesTheIdempotentRequestsItNeverAnswered(Transport t) throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            if (n == 0) {
                List<String> paths = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    paths.add(path(c.readRequest()));
                }
                c.write(ok(paths.get(0)) + ok(paths.get(1)));
                c.socket.close(); // FIN with three requests unanswered
                return;
            }
            String head;
            while ((head = c.readRequest()) != null) {
                c.write(ok("again " + path(head)));
            }
        }); HttpClient http = http(t); PipelineClient pipe = PipelineClient.on(http).build()) {
            CompletableFuture<ClientResponse> g1 = pipe.send(ClientRequest.get(server.url("/1")));
            CompletableFuture<ClientResponse> g2 = pipe.send(ClientRequest.get(server.url("/2")));
            CompletableFuture<ClientResponse> p3 = pipe.send(ClientRequest.builder("POST", server.url("/3")).body("x").build());
            CompletableFuture<ClientResponse> g4 = pipe.send(ClientRequest.get(server.url("/4")));
            CompletableFuture<ClientResponse> k5 = pipe.send(ClientRequest.builder("POST", server.url("/5"))
                    .header("Idempotency-Key", "k5").body("y").build());
            assertEquals("/1", get(g1).text());
            assertEquals("/2", get(g2).text());
            ClientException post = failure(p3);
            assertEquals(ClientException.Phase.CLOSED, post.phase(), "a POST is never sent twice");
            assertTrue(post.getMessage().contains("127.0.0.1:" + server.port()), post.getMessage());
            assertEquals("again /4", get(g4).text());
            assertEquals("again /5", get(k5).text(), "an Idempotency-Key makes a POST retriable");
            assertEquals(2, server.accepted());
            assertEquals(2, http.metrics("127.0.0.1:" + server.port()).retries.get());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aResponseCutShortFailsItsOwnCallEvenForGetAndTheOnesBehindAreRetried(Transport t) throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            if (n == 0) {
                List<String> paths = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    paths.add(path(c.readRequest()));
                }
                c.write(ok(paths.get(0)) + "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
                c.reset(); // RST in the middle of the second response
                return;
            }
            String head;
            while ((head = c.readRequest()) != null) {
                c.write(ok("again " + path(head)));
            }
        }); HttpClient http = http(t); PipelineClient pipe = PipelineClient.on(http).build()) {
            CompletableFuture<ClientResponse> a = pipe.send(ClientRequest.get(server.url("/a")));
            CompletableFuture<ClientResponse> b = pipe.send(ClientRequest.get(server.url("/b")));
            CompletableFuture<ClientResponse> c = pipe.send(ClientRequest.get(server.url("/c")));
            assertEquals("/a", get(a).text());
            assertEquals(ClientException.Phase.CLOSED, failure(b).phase(), "a response byte arrived: never retried");
            assertEquals("again /c", get(c).text());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aMalformedResponseFailsItsCallAndTheRestGoElsewhere(Transport t) throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            if (n == 0) {
                c.readRequest();
                c.readRequest();
                c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok");
                while (c.readRequest() != null) {
                    // silence: the client must close this connection itself
                }
                return;
            }
            String head;
            while ((head = c.readRequest()) != null) {
                c.write(ok("again " + path(head)));
            }
        }); HttpClient http = http(t); PipelineClient pipe = PipelineClient.on(http).build()) {
            CompletableFuture<ClientResponse> a = pipe.send(ClientRequest.get(server.url("/a")));
            CompletableFuture<ClientResponse> b = pipe.send(ClientRequest.get(server.url("/b")));
            ClientException bad = failure(a);
            assertEquals(ClientException.Phase.RESPONSE, bad.phase());
            assertTrue(bad.getMessage().contains("conflicting Content-Length"), bad.getMessage());
            assertEquals("again /b", get(b).text());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void beyondMaxConnsTimesMaxPendingACallFailsAtOnceWithPhasePool(Transport t) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            List<String> paths = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                paths.add(path(c.readRequest()));
            }
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (String p : paths) {
                c.write(ok(p));
            }
        }); HttpClient http = http(t); PipelineClient pipe = PipelineClient.on(http).maxConns(2).maxPending(3).build()) {
            List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                fs.add(pipe.send(ClientRequest.get(server.url("/" + i))));
            }
            ClientException full = failure(pipe.send(ClientRequest.get(server.url("/7"))));
            assertEquals(ClientException.Phase.POOL, full.phase());
            assertTrue(full.getMessage().contains("maxPending 3"), full.getMessage());
            release.countDown();
            List<String> bodies = new ArrayList<>();
            for (CompletableFuture<ClientResponse> f : fs) {
                bodies.add(get(f).text());
            }
            bodies.sort(null);
            assertEquals(List.of("/0", "/1", "/2", "/3", "/4", "/5"), bodies);
            assertEquals(2, server.accepted());
        } finally {
            release.countDown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aServerThatNeverAnswersFailsEveryCallInFlightWithPhaseRead(Transport t) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            while (c.readRequest() != null) {
                try {
                    release.await(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }); HttpClient http = HttpClient.builder().transport(t).readTimeout(Duration.ofMillis(300)).build();
             PipelineClient pipe = PipelineClient.on(http).build()) {
            CompletableFuture<ClientResponse> a = pipe.send(ClientRequest.get(server.url("/a")));
            CompletableFuture<ClientResponse> b = pipe.send(ClientRequest.get(server.url("/b")));
            assertEquals(ClientException.Phase.READ, failure(a).phase());
            assertEquals(ClientException.Phase.READ, failure(b).phase());
        } finally {
            release.countDown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aCallMadeOnALoopThreadStaysOnIt(Transport t) throws Exception {
        CountDownLatch chained = new CountDownLatch(1);
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            String head;
            while ((head = c.readRequest()) != null) {
                if (head.startsWith("GET /first ")) {
                    try {
                        chained.await(20, TimeUnit.SECONDS); // answer only once the test chained its callback
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                c.write(ok("x"));
            }
        }); HttpClient http = HttpClient.builder().transport(t).threads(3).build();
             PipelineClient pipe = PipelineClient.on(http).build()) {
            CompletableFuture<String[]> threads = pipe.send(ClientRequest.get(server.url("/first"))).thenCompose(r -> {
                String first = Thread.currentThread().getName();
                return pipe.send(ClientRequest.get(server.url("/second")))
                        .thenApply(r2 -> new String[] {first, Thread.currentThread().getName()});
            });
            chained.countDown();
            String[] names = threads.get(20, TimeUnit.SECONDS);
            assertTrue(names[0].startsWith("peregrine-"), names[0]);
            assertEquals(names[0], names[1], "the second call ran and completed on the first one's loop");
        } finally {
            chained.countDown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aBatchDelayStillDeliversAndConnectionCloseMovesTheRestElsewhere(Transport t) throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            String first = c.readRequest();
            String second = c.readRequest();
            if (n == 0) {
                c.write("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\n1");
                c.socket.close();
                return;
            }
            c.write(ok(path(first)));
            if (second != null) {
                c.write(ok(path(second)));
            }
        }); HttpClient http = http(t); PipelineClient pipe = PipelineClient.on(http).maxBatchDelay(Duration.ofMillis(20)).build()) {
            CompletableFuture<ClientResponse> a = pipe.send(ClientRequest.get(server.url("/a")));
            CompletableFuture<ClientResponse> b = pipe.send(ClientRequest.get(server.url("/b")));
            CompletableFuture<ClientResponse> c = pipe.send(ClientRequest.get(server.url("/c")));
            assertEquals("1", get(a).text());
            assertEquals("/b", get(b).text());
            assertEquals("/c", get(c).text());
        }
    }

    /**
     * A 2 ms batch delay holds a lone call about 2 ms, not until the loop's 10 ms wheel ticks: the bound
     * is the feature's contract (a median over 50 calls well under the tick, the machine's latency as the
     * margin), and no answer comes before the delay.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL", "IO_URING"})
    void aTwoMillisecondBatchDelayAnswersWellUnderTheTick(Transport t) throws Exception {
        int calls = 50;
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i"))).start();
             HttpClient http = http(t);
             PipelineClient pipe = PipelineClient.on(http).maxBatchDelay(Duration.ofMillis(2)).build()) {
            String url = "http://127.0.0.1:" + server.port() + "/n?i=";
            for (int i = 0; i < 10; i++) { // warm-up: connection, JIT
                assertEquals("n=" + i, get(pipe.send(ClientRequest.get(url + i))).text());
            }
            long[] took = new long[calls];
            for (int i = 0; i < calls; i++) {
                long t0 = System.nanoTime();
                assertEquals("n=" + i, get(pipe.send(ClientRequest.get(url + i))).text());
                took[i] = System.nanoTime() - t0;
            }
            java.util.Arrays.sort(took);
            assertTrue(took[0] >= 2_000_000, "no answer before the delay: " + took[0] + " ns");
            long median = took[calls / 2] / 1_000_000;
            assertTrue(median < 8, t + ", delay 2 ms: median " + median + " ms per call, the old 10 ms tick's");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void pipelinesOverTls(Transport t) throws Exception {
        dev.peregrine.tls.TlsConfig tls = dev.peregrine.tls.TlsConfig.selfSigned();
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).tls(tls)
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i"))).start();
             HttpClient http = HttpClient.builder().transport(t).sslContext(TrustingContext.of(tls.certificate())).build();
             PipelineClient pipe = PipelineClient.on(http).build()) {
            List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                fs.add(pipe.send(ClientRequest.get("https://localhost:" + server.httpsPort() + "/n?i=" + i)));
            }
            for (int i = 0; i < fs.size(); i++) {
                assertEquals("n=" + i, get(fs.get(i)).text());
            }
            assertEquals(1, server.metrics().accepted);
        }
    }


    @Test
    void aConnectionPastMaxLifetimeTakesNoNewCallAndIsClosedOnceIdle() throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1)
                .get("/x", (req, res) -> res.text("x")).start();
             HttpClient http = HttpClient.builder().maxLifetime(Duration.ofMillis(1)).build();
             PipelineClient pipe = PipelineClient.on(http).build()) {
            String url = "http://127.0.0.1:" + server.port() + "/x";
            assertEquals("x", get(pipe.send(ClientRequest.get(url))).text());
            long aged = System.currentTimeMillis() + 2;
            while (System.currentTimeMillis() < aged) {
                Thread.onSpinWait(); // the clock must pass the lifetime; nothing else is awaited
            }
            assertEquals("x", get(pipe.send(ClientRequest.get(url))).text());
            assertEquals(2, server.metrics().accepted, "the aged connection was not reused");
            // the server counts the close on its loop
            Await.until("the aged idle connection was closed", () -> server.metrics().closed >= 1);
        }
    }

    @Test
    void settingsAreCheckedAtTheCall() {
        try (HttpClient http = HttpClient.builder().build()) {
            assertThrows(IllegalArgumentException.class, () -> PipelineClient.on(http).maxConns(0));
            assertThrows(IllegalArgumentException.class, () -> PipelineClient.on(http).maxPending(0));
            assertThrows(IllegalArgumentException.class, () -> PipelineClient.on(http).maxBatchDelay(Duration.ofMillis(-1)));
            assertThrows(IllegalArgumentException.class, () -> PipelineClient.on(null));
        }
    }
}
