package dev.peregrine.transport.iouring;

import dev.peregrine.Server;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Timeout;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One io_uring loop as other threads see it: task hand-off, thread identity, and its timer wheel. */
class IoUringEventLoopTest {
    private LoopContext ctx;
    private IoUringEventLoop loop;

    @BeforeEach
    void start() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(IoUringAvailability.isAvailable(), IoUringAvailability::unavailabilityReason);
        dev.peregrine.ServerConfig config;
        try (Server s = Server.builder().host("127.0.0.1").port(0).threads(1).transport("nio").start()) {
            config = s.config(); // ServerConfig comes from the builder only
        }
        ctx = dev.peregrine.TestConfigs.unboundServerLoop(config, Router.builder().build());
        loop = new IoUringEventLoop(0, ctx, null, new dev.peregrine.transport.ConnectionLimit(16, 1));
        loop.start();
    }

    @AfterEach
    void stop() {
        if (loop == null) {
            return;
        }
        loop.beginStop(0);
        loop.awaitStopped(10_000);
        loop.shutdown();
    }

    @Test
    void contextKnowsItsLoop() {
        assertSame(loop, ctx.eventLoop());
    }

    @Test
    void tasksFromOtherThreadsRunOnTheLoopThreadInOrder() throws Exception {
        assertFalse(loop.inEventLoop());
        int tasks = 10_000;
        AtomicInteger next = new AtomicInteger();
        AtomicInteger outOfOrder = new AtomicInteger();
        AtomicInteger offLoop = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(1);
        for (int i = 0; i < tasks; i++) {
            int expected = i;
            loop.execute(() -> {
                if (!loop.inEventLoop() || !Thread.currentThread().getName().equals("peregrine-io_uring-0")) {
                    offLoop.incrementAndGet();
                }
                if (next.getAndIncrement() != expected) {
                    outOfOrder.incrementAndGet();
                }
                if (expected == tasks - 1) {
                    done.countDown();
                }
            });
        }
        assertTrue(done.await(30, TimeUnit.SECONDS));
        assertEquals(0, offLoop.get());
        assertEquals(0, outOfOrder.get());
    }

    @Test
    void theLoopDrivesItsTimerWheel() throws Exception {
        CompletableFuture<String> fired = new CompletableFuture<>();
        Timeout t = new Timeout() {
            @Override
            protected void onTimeout() {
                fired.complete(Thread.currentThread().getName());
            }
        };
        loop.execute(() -> ctx.timers().schedule(t, 30, System.currentTimeMillis()));
        assertEquals("peregrine-io_uring-0", fired.get(30, TimeUnit.SECONDS));
    }

    @Test
    void tasksAfterStopAreDropped() {
        loop.beginStop(0);
        loop.awaitStopped(10_000);
        loop.shutdown();
        loop.execute(() -> {
            throw new AssertionError("ran after shutdown");
        });
        assertFalse(loop.executeOrDrop(() -> { }));
    }
}
