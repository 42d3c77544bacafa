package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A delayed batch has one timer, armed by its first frame and left alone by the frames after it (its
 * deadline stays the first frame's: the delay is counted from there, and the loop's timer heap is not
 * touched per frame), and the batch leaves once, when it fires. Read on the loops themselves (the fine
 * timers' count and nearest deadline), with a delay of an hour so nothing fires meanwhile; no clock is
 * asserted.
 */
class BatchTimerTest {
    private Server server;
    private TeleportClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void theClientsBatchTimerIsArmedOnceByItsFirstFrame(Transport t) throws Exception {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).teleport(0)
                .get("/n", (req, res) -> res.text("n")).start();
        client = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t)
                .maxBatchDelay(Duration.ofHours(1)).timeout(Duration.ofHours(2)).build();
        TeleportChannel ch = channel(client);
        Await.until("connected", () -> isOpen(ch));
        List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
        fs.add(client.send(ClientRequest.get("http://svc/n")));
        Await.until("the first call queued", () -> ch.load == 1);
        long[] first = timers(ch.loop);
        assertEquals(1, first[0], "the first frame armed the batch timer");
        for (int i = 0; i < 99; i++) {
            fs.add(client.send(ClientRequest.get("http://svc/n")));
        }
        Await.until("the 100 calls queued", () -> ch.load == 100);
        long[] later = timers(ch.loop);
        assertEquals(1, later[0], "still one timer");
        assertEquals(first[1], later[1], "its deadline is still the first frame's");
        assertEquals(0, client.batches(), "nothing left before the timer");
        // The timer fires (run now, on the loop, as the loop would at its deadline): one batch, every call.
        onLoop(ch.loop, () -> {
            ch.loop.fineTimers().runDue(Long.MAX_VALUE);
            return true;
        });
        for (CompletableFuture<ClientResponse> f : fs) {
            assertEquals("n", f.get(30, TimeUnit.SECONDS).text());
        }
        assertEquals(1, client.batches());
        assertEquals(100, client.framesSent());
        assertEquals(0, timers(ch.loop)[0], "no timer left armed");
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void theServersBatchTimerIsArmedOnceByItsFirstFrame(Transport t) throws Exception {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).teleport(0)
                .teleportMaxBatchDelay(Duration.ofHours(1))
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i"))).start();
        LoopContext loop = TeleportSyscallsTest.serverLoop(server);
        TeleportLoop tl = (TeleportLoop) loop.protocols();
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            long frames0 = tl.framesOut;
            p.write(TestPeer.request(1, TestPeer.get("/n?i=1")));
            Await.until("the first answer made", () -> tl.framesOut - frames0 == 1);
            long[] first = timers(loop);
            assertEquals(1, first[0], "the first frame armed the batch timer");
            for (int i = 2; i <= 20; i++) { // one write each: input turns of their own, joining the waiting batch
                p.write(TestPeer.request(i, TestPeer.get("/n?i=" + i)));
                int made = i;
                Await.until("answer " + i + " made", () -> tl.framesOut - frames0 == made);
            }
            long[] later = timers(loop);
            assertEquals(1, later[0], "still one timer");
            assertEquals(first[1], later[1], "its deadline is still the first frame's");
            long batches0 = tl.batches;
            onLoop(loop, () -> {
                loop.fineTimers().runDue(Long.MAX_VALUE);
                return true;
            });
            for (int i = 1; i <= 20; i++) {
                assertEquals("n=" + i, p.read().body());
            }
            assertEquals(1, tl.batches - batches0, "the 20 answers left as one batch");
            assertEquals(0, timers(loop)[0], "no timer left armed");
        }
    }

    /** Whether the channel's connection is open (read on its loop). */
    private static boolean isOpen(TeleportChannel ch) {
        try {
            java.lang.reflect.Field f = TeleportChannel.class.getDeclaredField("state");
            f.setAccessible(true);
            return onLoop(ch.loop, () -> f.get(ch) == TeleportChannel.State.OPEN);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The loop's armed fine timers and the nearest deadline (0 when none), read on the loop. */
    private static long[] timers(LoopContext loop) throws Exception {
        long[] got = new long[2];
        onLoop(loop, () -> {
            got[0] = loop.fineTimers().armed();
            got[1] = loop.fineTimers().isEmpty() ? 0 : loop.fineTimers().nextDeadlineNanos();
            return true;
        });
        return got;
    }

    private interface Check {
        boolean test() throws Exception;
    }

    /** Runs {@code check} on {@code loop}'s thread and returns what it returned. */
    private static boolean onLoop(LoopContext loop, Check check) throws Exception {
        CompletableFuture<Boolean> r = new CompletableFuture<>();
        loop.eventLoop().execute(() -> {
            try {
                r.complete(check.test());
            } catch (Exception | AssertionError e) {
                r.completeExceptionally(e);
            }
        });
        return r.get(10, TimeUnit.SECONDS);
    }

    private static TeleportChannel channel(TeleportClient c) throws Exception {
        java.lang.reflect.Field f = TeleportClient.class.getDeclaredField("channels");
        f.setAccessible(true);
        return ((TeleportChannel[]) f.get(c))[0];
    }
}
