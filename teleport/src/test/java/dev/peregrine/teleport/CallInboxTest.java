package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link CallInbox}: calls from many threads at once reach the loop through the channel's inbox, none
 * stranded and none answered twice, whether the inbox takes them all or fills and the rest go call by
 * call as tasks; calls beyond the in-flight cap fail POOL, never hang. Real sockets, NIO and epoll.
 */
class CallInboxTest {
    private static final int THREADS = 8;
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

    private Server server(Transport t) {
        return keep(Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).teleport(0)
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i"))).start());
    }

    private TeleportClient client(Server server, Transport t, int maxInFlight) throws Exception {
        TeleportClient tp = keep(TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t)
                .maxInFlight(maxInFlight).timeout(Duration.ofSeconds(30)).build());
        assertEquals("n=-1", tp.execute(ClientRequest.get("http://svc/n?i=-1")).text()); // connected
        return tp;
    }

    /** Eight threads send 3,000 calls each at once, more than the inbox holds: every one answered, its own answer. */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void everyCallFromManyThreadsIsAnsweredOnce(Transport t) throws Exception {
        TeleportClient tp = client(server(t), t, 100_000); // the inbox holds 4,096: bursts past it go as tasks
        int perThread = 3_000;
        List<List<CompletableFuture<ClientResponse>>> sent = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int n = 0; n < THREADS; n++) {
            List<CompletableFuture<ClientResponse>> mine = new ArrayList<>();
            sent.add(mine);
            int base = n * perThread;
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    mine.add(tp.send(ClientRequest.get("http://svc/n?i=" + (base + i))));
                }
            });
            threads.add(th);
            th.start();
        }
        go.countDown();
        for (Thread th : threads) {
            th.join(30_000);
        }
        for (int n = 0; n < THREADS; n++) {
            List<CompletableFuture<ClientResponse>> mine = sent.get(n);
            assertEquals(perThread, mine.size());
            for (int i = 0; i < perThread; i++) {
                assertEquals("n=" + (n * perThread + i), mine.get(i).get(30, TimeUnit.SECONDS).text());
            }
        }
        assertTrue(tp.batches() < tp.framesSent(), tp.batches() + " batches for " + tp.framesSent() + " frames");
    }

    /**
     * A cap of 2 in flight (an inbox of 2): of a burst from many threads on the reuse path each call is
     * answered 200 or fails POOL, every callback runs exactly once, and the channel still serves after.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aTinyInboxAndCapFailCallsPoolAndLoseNone(Transport t) throws Exception {
        TeleportClient tp = client(server(t), t, 2);
        int perThread = 500;
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger pool = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(THREADS * perThread);
        ResponseCallback cb = (r, failure) -> {
            if (failure == null && r.status() == 200) {
                ok.incrementAndGet();
            } else if (failure != null && failure.phase() == ClientException.Phase.POOL) {
                pool.incrementAndGet();
            } else {
                other.incrementAndGet();
            }
            done.countDown();
        };
        List<Thread> threads = new ArrayList<>();
        for (int n = 0; n < THREADS; n++) {
            Thread th = new Thread(() -> {
                ClientRequest req = ClientRequest.get("http://svc/n?i=1");
                for (int i = 0; i < perThread; i++) {
                    tp.send(req, new ReusableResponse(), cb);
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join(30_000);
        }
        assertTrue(done.await(30, TimeUnit.SECONDS), done.getCount() + " callbacks never ran");
        assertEquals(0, other.get(), "only answers and POOL failures");
        assertEquals(THREADS * perThread, ok.get() + pool.get());
        assertTrue(ok.get() > 0, "some calls were answered");
        assertEquals("n=7", tp.execute(ClientRequest.get("http://svc/n?i=7")).text(), "the channel still serves");
    }
}
