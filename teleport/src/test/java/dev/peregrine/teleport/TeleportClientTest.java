package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.client.BalancingClient;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.HttpClient;
import dev.peregrine.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TeleportClient} against a Peregrine teleport server and against scripted raw-socket peers, on NIO and epoll. */
class TeleportClientTest {
    private final List<AutoCloseable> open = new ArrayList<>();

    private <T extends AutoCloseable> T keep(T c) {
        open.add(c);
        return c;
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private final java.util.concurrent.ScheduledExecutorService timer = keep(new ScheduledCloser()).executor;

    /** The executor that completes the delayed handlers, shut down after each test. */
    private static final class ScheduledCloser implements AutoCloseable {
        final java.util.concurrent.ScheduledExecutorService executor = java.util.concurrent.Executors.newScheduledThreadPool(2);

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }

    private Server server(Transport t) {
        return keep(Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).teleport(0)
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i")))
                .get("/delay", (req, res) -> { // a random delay: responses come back out of order
                    dev.peregrine.Completion done = res.async();
                    String i = req.query().get("i");
                    timer.schedule(() -> {
                        done.response().text("d=" + i);
                        done.complete();
                    }, java.util.concurrent.ThreadLocalRandom.current().nextInt(20), TimeUnit.MILLISECONDS);
                })
                .post("/echo", (req, res) -> res.body(req.bodyBytes()))
                .start());
    }

    private static ClientException failure(CompletableFuture<ClientResponse> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
        return (ClientException) e.getCause();
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void tenThousandRequestsInFlightWithRandomDelaysAreMatchedById(Transport t) throws Exception {
        Server server = server(t);
        TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t).connections(2)
                .maxInFlight(10_000).timeout(Duration.ofSeconds(20)).build());
        assertEquals("n=-1", tp.execute(ClientRequest.get("http://svc/n?i=-1")).text()); // connected
        List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            fs.add(i % 97 == 3
                    ? tp.send(ClientRequest.builder("POST", "http://svc/echo").body("body " + i).build())
                    : i % 2 == 0 ? tp.send(ClientRequest.get("http://svc/delay?i=" + i))
                    : tp.send(ClientRequest.get("http://svc/n?i=" + i)));
        }
        for (int i = 0; i < fs.size(); i++) {
            assertEquals(i % 97 == 3 ? "body " + i : i % 2 == 0 ? "d=" + i : "n=" + i, fs.get(i).get(30, TimeUnit.SECONDS).text());
        }
        assertEquals(2, server.metrics().accepted, "two connections carried them all");
        assertTrue(tp.batches() < tp.framesSent(), tp.batches() + " batches for " + tp.framesSent() + " frames");
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void deflateBothWays(Transport t) throws Exception {
        Server server = server(t);
        TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t)
                .compression(TeleportCompression.DEFLATE).maxInFlight(5000).timeout(Duration.ofSeconds(20)).build());
        List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            fs.add(i % 3 == 0 ? tp.send(ClientRequest.builder("POST", "http://svc/echo").body(("body " + i).repeat(50)).build())
                    : i % 3 == 1 ? tp.send(ClientRequest.get("http://svc/delay?i=" + i))
                    : tp.send(ClientRequest.get("http://svc/n?i=" + i)));
        }
        for (int i = 0; i < fs.size(); i++) {
            assertEquals(i % 3 == 0 ? ("body " + i).repeat(50) : i % 3 == 1 ? "d=" + i : "n=" + i,
                    fs.get(i).get(30, TimeUnit.SECONDS).text());
        }
    }

    /** The batch delay is honoured: counted in frames and batches (writes), not by the clock. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void framesGatherForTheBatchDelayAndLeaveAtMaxBatchFrames(Transport t) throws Exception {
        Server server = server(t);
        TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t)
                .maxBatchDelay(Duration.ofSeconds(2)).maxBatchFrames(10).timeout(Duration.ofSeconds(20)).build());
        tp.execute(ClientRequest.get("http://svc/n?i=0"));
        assertEquals(1, tp.batches());
        List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            fs.add(tp.send(ClientRequest.get("http://svc/n?i=" + i)));
        }
        for (CompletableFuture<ClientResponse> f : fs) {
            f.get(20, TimeUnit.SECONDS);
        }
        assertEquals(101, tp.framesSent());
        assertEquals(11, tp.batches(), "100 calls within the 2 s delay: one flush, cut at every 10 frames");
    }

    /** A silent server: the call fails READ at its timeout, a CANCEL for its id follows; beyond the cap: POOL. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aTimeoutFailsReadAndCancelsItsId(Transport t) throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            CompletableFuture<TestPeer.Got> cancel = new CompletableFuture<>();
            Thread peer = new Thread(() -> {
                try (Socket s = ss.accept(); TestPeer p = new TestPeer(s)) {
                    p.acceptHello(2);
                    TestPeer.Got req = p.read();
                    TestPeer.Got c = p.read();
                    cancel.complete(new TestPeer.Got(c.type(), c.id() == req.id() ? 1 : 0, c.payload()));
                    p.closedByServer(); // waits for the client to go
                } catch (Exception e) {
                    cancel.completeExceptionally(e);
                }
            });
            peer.start();
            TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", ss.getLocalPort()).transport(t)
                    .timeout(Duration.ofMillis(300)).build());
            CompletableFuture<ClientResponse> first = tp.send(ClientRequest.get("http://svc/a"));
            ClientException e = failure(first);
            assertEquals(ClientException.Phase.READ, e.phase(), e.getMessage());
            TestPeer.Got c = cancel.get(20, TimeUnit.SECONDS);
            assertEquals(Frame.CANCEL, c.type());
            assertEquals(1, c.id(), "the CANCEL names the timed-out request's id");
        }
    }

    /** The server states a cap of 2 in flight: a third call fails POOL at once; the two go on. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void callsBeyondTheServersCapFailPool(Transport t) throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            Thread peer = new Thread(() -> {
                try (Socket s = ss.accept(); TestPeer p = new TestPeer(s)) {
                    p.acceptHello(2);
                    TestPeer.Got warm = p.read();
                    p.write(TestPeer.frame(warm.id(), Frame.RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes()));
                    while (true) {
                        p.read(); // silent from now on
                    }
                } catch (Exception ignored) {
                    // the client went: the test's assertions say what went wrong
                }
            });
            peer.start();
            TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", ss.getLocalPort()).transport(t)
                    .timeout(Duration.ofSeconds(20)).build());
            assertEquals(200, tp.execute(ClientRequest.get("http://svc/warm")).status());
            CompletableFuture<ClientResponse> a = tp.send(ClientRequest.get("http://svc/a"));
            CompletableFuture<ClientResponse> b = tp.send(ClientRequest.get("http://svc/b"));
            ClientException e = failure(tp.send(ClientRequest.get("http://svc/c")));
            assertEquals(ClientException.Phase.POOL, e.phase(), e.getMessage());
            assertTrue(!a.isDone() && !b.isDone(), "the two in flight wait on");
        }
    }

    /** Bad input closes only that connection, fails its calls (RESPONSE), and the client reconnects. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aResponseForNoCallClosesTheConnectionThenTheClientReconnects(Transport t) throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            Thread peer = new Thread(() -> {
                try {
                    try (Socket s = ss.accept(); TestPeer p = new TestPeer(s)) {
                        p.acceptHello(10);
                        TestPeer.Got req = p.read();
                        p.write(TestPeer.frame(req.id() + 1000, Frame.RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes()));
                        p.closedByServer();
                    }
                    try (Socket s = ss.accept(); TestPeer p = new TestPeer(s)) {
                        p.acceptHello(10);
                        TestPeer.Got req = p.read();
                        p.write(TestPeer.frame(req.id(), Frame.RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes()));
                        p.closedByServer();
                    }
                } catch (Exception ignored) {
                    // the test's assertions say what went wrong
                }
            });
            peer.start();
            TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", ss.getLocalPort()).transport(t)
                    .timeout(Duration.ofSeconds(20)).build());
            ClientException e;
            do {
                e = failure(tp.send(ClientRequest.get("http://svc/a")));
            } while (e.phase() == ClientException.Phase.CONNECT);
            assertEquals(ClientException.Phase.RESPONSE, e.phase(), e.getMessage());
            ClientResponse r = null;
            while (r == null) {
                try {
                    r = tp.send(ClientRequest.get("http://svc/b")).get(20, TimeUnit.SECONDS);
                } catch (ExecutionException down) {
                    assertEquals(ClientException.Phase.CONNECT, ((ClientException) down.getCause()).phase());
                }
            }
            assertEquals("ok", r.text());
        }
    }

    /**
     * The server dies (RST) while a batch of 2,000 requests is arriving: every call completes (CLOSED),
     * none hangs, and the client reconnects to answer the next.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aConnectionKilledMidBatchFailsItsCallsAndTheClientReconnects(Transport t) throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            Thread peer = new Thread(() -> {
                try {
                    try (Socket s = ss.accept(); TestPeer p = new TestPeer(s)) {
                        p.acceptHello(10_000);
                        p.read();
                        p.read();
                        p.in.readFully(new byte[5]); // into the third frame
                        s.setSoLinger(true, 0); // reset, mid-batch
                    }
                    try (Socket s = ss.accept(); TestPeer p = new TestPeer(s)) {
                        p.acceptHello(10);
                        TestPeer.Got req = p.read();
                        p.write(TestPeer.frame(req.id(), Frame.RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nagain".getBytes()));
                        p.closedByServer();
                    }
                } catch (Exception ignored) {
                    // the test's assertions say what went wrong
                }
            });
            peer.start();
            TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", ss.getLocalPort()).transport(t)
                    .maxInFlight(5000).maxBatchDelay(Duration.ofMillis(200)).timeout(Duration.ofSeconds(20)).build());
            List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                fs.add(tp.send(ClientRequest.get("http://svc/n?i=" + i)));
            }
            int closed = 0;
            for (CompletableFuture<ClientResponse> f : fs) {
                ClientException e = failure(f);
                closed += e.phase() == ClientException.Phase.CLOSED ? 1 : 0;
            }
            assertTrue(closed > 0, "the calls in flight failed CLOSED");
            ClientResponse r = null;
            while (r == null) {
                try {
                    r = tp.send(ClientRequest.get("http://svc/b")).get(20, TimeUnit.SECONDS);
                } catch (ExecutionException down) {
                    assertEquals(ClientException.Phase.CONNECT, ((ClientException) down.getCause()).phase());
                }
            }
            assertEquals("again", r.text());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aRefusedHandshakeFailsConnect(Transport t) throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            Thread peer = new Thread(() -> {
                try (Socket s = ss.accept(); TestPeer p = new TestPeer(s)) {
                    p.in.readFully(new byte[Handshake.HELLO]);
                    p.write(new byte[] {Handshake.REASON_BAD_VERSION});
                } catch (Exception ignored) {
                    // the test's assertions say what went wrong
                }
            });
            peer.start();
            TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", ss.getLocalPort()).transport(t).build());
            ClientException e = failure(tp.send(ClientRequest.get("http://svc/a")));
            assertEquals(ClientException.Phase.CONNECT, e.phase());
        }
    }

    /** The balancing client mixes a teleport upstream with an HTTP one. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aBalancingClientMixesTeleportAndHttp(Transport t) throws Exception {
        Server server = server(t);
        TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t).build());
        HttpClient http = keep(HttpClient.builder().transport(t).build());
        BalancingClient lb = keep(BalancingClient.builder()
                .upstream("http://127.0.0.1:" + server.teleportPort(), tp)
                .upstream("http://127.0.0.1:" + server.port(), http)
                .build());
        for (int i = 0; i < 200; i++) {
            try {
                assertEquals("n=" + i, lb.execute(ClientRequest.get("http://svc/n?i=" + i)).text());
            } catch (ClientException e) {
                assertEquals(ClientException.Phase.CONNECT, e.phase(), "only before the teleport connection is up");
            }
        }
        assertTrue(tp.framesSent() > 0, "the teleport upstream took calls");
    }
}
