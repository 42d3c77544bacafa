package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ReusableResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link TeleportClient#send(ClientRequest, ReusableResponse, dev.peregrine.client.ResponseCallback)}
 * over real sockets: recycled calls and reused responses matched to the right answer when answers come
 * back out of order; a timed-out call fails with an empty response and its late answer (the server
 * still sends it) never reaches the object the caller reused; an object still in a call is refused at
 * the call; a call after {@code close()} fails on the caller's thread.
 */
class TeleportReusePathTest {
    private final List<AutoCloseable> open = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
    /** Completes the held answers of {@code /hold}. */
    private final CompletableFuture<Void> release = new CompletableFuture<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        timer.shutdownNow();
    }

    private Server server(Transport t) {
        Server s = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).teleport(0)
                .post("/echo", (req, res) -> { // a random delay: answers come back out of order
                    dev.peregrine.Completion done = res.async();
                    byte[] body = req.bodyBytes();
                    timer.schedule(() -> {
                        done.response().body(body);
                        done.complete();
                    }, ThreadLocalRandom.current().nextInt(5), TimeUnit.MILLISECONDS);
                })
                .get("/hold", (req, res) -> { // answered once the test releases it
                    dev.peregrine.Completion done = res.async();
                    release.thenRun(() -> {
                        done.response().text("held");
                        done.complete();
                    });
                })
                .start();
        open.add(s);
        return s;
    }

    /**
     * 16 response objects, 3,000 calls: the first of each chain from the test thread, the rest from the
     * callbacks (on the loop, no hop), each with a body of its own; every answer lands in the object of
     * the call it answers.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void recycledCallsFillTheResponseOfTheCallTheyAnswer(Transport t) throws Exception {
        Server server = server(t);
        TeleportClient tp = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t)
                .timeout(Duration.ofSeconds(20)).build();
        open.add(tp);
        int chains = 16;
        int total = 3_000;
        Map<ReusableResponse, String> expected = new IdentityHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger answered = new AtomicInteger();
        ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(1);
        dev.peregrine.client.ResponseCallback[] next = new dev.peregrine.client.ResponseCallback[1];
        next[0] = (r, failure) -> {
            String want;
            synchronized (expected) {
                want = expected.get(r);
            }
            String got = failure != null ? failure.toString() : r.status() + " " + r.text();
            if (!("200 " + want).equals(got)) {
                problems.add("wanted " + want + ", got " + got);
            }
            if (answered.incrementAndGet() == total) {
                done.countDown();
            }
            int n = sent.getAndIncrement();
            if (n < total) {
                send(tp, r, n, expected, next[0]);
            }
        };
        for (int i = 0; i < chains; i++) {
            send(tp, new ReusableResponse(), sent.getAndIncrement(), expected, next[0]);
        }
        assertTrue(done.await(60, TimeUnit.SECONDS), answered.get() + " of " + total + " answered");
        assertTrue(problems.isEmpty(), problems.size() + " wrong answers, e.g. " + problems.peek());
    }

    private static void send(TeleportClient tp, ReusableResponse r, int n, Map<ReusableResponse, String> expected,
                             dev.peregrine.client.ResponseCallback cb) {
        String body = "call-" + n + "-" + "x".repeat(n % 97);
        synchronized (expected) {
            expected.put(r, body);
        }
        tp.send(ClientRequest.builder("POST", "http://svc/echo").body(body).build(), r, cb);
    }

    /**
     * A silent call times out: its callback has status 0 and READ; a CANCEL names its id. The caller
     * sends again with the same object; the server then answers the cancelled id late and the new one:
     * the object holds the new answer only.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aTimedOutCallsLateAnswerNeverReachesTheReusedObject(Transport t) throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            CompletableFuture<String> peerDone = new CompletableFuture<>();
            Thread peer = new Thread(() -> {
                try (Socket s = ss.accept(); TestPeer p = new TestPeer(s)) {
                    p.acceptHello(8);
                    TestPeer.Got first = p.read();
                    TestPeer.Got cancel = p.read();
                    TestPeer.Got second = p.read();
                    p.write(TestPeer.frame(first.id(), Frame.RESPONSE,
                            "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nlate".getBytes(StandardCharsets.ISO_8859_1)));
                    p.write(TestPeer.frame(second.id(), Frame.RESPONSE,
                            "HTTP/1.1 201 Created\r\nContent-Length: 6\r\n\r\nsecond".getBytes(StandardCharsets.ISO_8859_1)));
                    peerDone.complete(cancel.type() + " " + (cancel.id() == first.id()));
                    p.closedByServer();
                } catch (Exception e) {
                    peerDone.completeExceptionally(e);
                }
            });
            peer.start();
            TeleportClient tp = TeleportClient.builder("127.0.0.1", ss.getLocalPort()).transport(t)
                    .timeout(Duration.ofMillis(300)).build();
            open.add(tp);
            ReusableResponse r = new ReusableResponse();
            CompletableFuture<String> first = new CompletableFuture<>();
            tp.send(ClientRequest.get("http://svc/first"), r, (resp, failure) ->
                    first.complete(resp.status() + " " + (failure == null ? "none" : failure.phase())));
            assertEquals("0 READ", first.get(20, TimeUnit.SECONDS), "failed empty at its deadline");
            CompletableFuture<String> second = new CompletableFuture<>();
            tp.send(ClientRequest.get("http://svc/second"), r, (resp, failure) ->
                    second.complete(failure != null ? failure.toString() : resp.status() + " " + resp.text()));
            assertEquals(Frame.CANCEL + " true", peerDone.get(20, TimeUnit.SECONDS));
            assertEquals("201 second", second.get(20, TimeUnit.SECONDS));
        }
    }

    /** An object in a call is refused at the call; after close() a call fails SHUTDOWN on the caller's thread. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void anObjectInACallIsRefusedAndACallAfterCloseFailsAtOnce(Transport t) throws Exception {
        Server server = server(t);
        TeleportClient tp = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t)
                .timeout(Duration.ofSeconds(20)).build();
        ReusableResponse r = new ReusableResponse();
        CompletableFuture<String> answered = new CompletableFuture<>();
        ClientRequest echo = ClientRequest.builder("POST", "http://svc/echo").body("hi").build();
        tp.send(ClientRequest.get("http://svc/hold"), r, (resp, failure) -> answered.complete(resp.status() + " " + resp.text()));
        assertThrows(IllegalStateException.class, () -> tp.send(echo, r, (resp, failure) -> { }));
        release.complete(null);
        assertEquals("200 held", answered.get(20, TimeUnit.SECONDS));
        tp.close();
        CompletableFuture<String> after = new CompletableFuture<>();
        Thread caller = Thread.currentThread();
        tp.send(echo, r, (resp, failure) -> after.complete((Thread.currentThread() == caller) + " " + failure.phase()));
        assertEquals("true SHUTDOWN", after.get(20, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> tp.send(echo, null, (resp, failure) -> { }));
    }
}
