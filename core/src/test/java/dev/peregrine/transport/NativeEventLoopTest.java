package dev.peregrine.transport;

import dev.peregrine.loop.LoopConfig;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.loop.Timeout;
import dev.peregrine.transport.epoll.EpollAvailability;
import dev.peregrine.transport.epoll.EpollTransport;
import dev.peregrine.transport.iouring.IoUringAvailability;
import dev.peregrine.transport.iouring.IoUringTransport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One native loop (epoll and io_uring, the same {@link NativeEventLoop}) as other threads see it: task
 * hand-off, thread identity, its timer wheel, and tasks dropped once it has stopped.
 */
class NativeEventLoopTest {
    /** One loop of {@code transport}, listening on nothing; skipped where the transport cannot run. */
    private static NativeEventLoop start(String transport) throws Exception {
        TransportEngine engine;
        if (transport.equals("epoll")) {
            Assumptions.assumeTrue(EpollAvailability.isAvailable(), EpollAvailability::unavailabilityReason);
            engine = EpollTransport.create();
        } else {
            Assumptions.assumeTrue(IoUringAvailability.isAvailable(), IoUringAvailability::unavailabilityReason);
            engine = IoUringTransport.create();
        }
        TransportServer loops = engine.startLoops(LoopSetup.outbound(LoopConfig.builder().threads(1).build()), 1);
        return assertInstanceOf(NativeEventLoop.class, loops.loops().get(0).eventLoop());
    }

    private static void stop(NativeEventLoop loop) {
        loop.beginStop(0);
        loop.awaitTermination(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void tasksFromOtherThreadsRunOnTheLoopThreadInOrder(String transport) throws Exception {
        NativeEventLoop loop = start(transport);
        try {
            assertFalse(loop.inEventLoop());
            int tasks = 10_000;
            AtomicInteger next = new AtomicInteger();
            AtomicInteger outOfOrder = new AtomicInteger();
            AtomicInteger offLoop = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(1);
            for (int i = 0; i < tasks; i++) {
                int expected = i;
                loop.execute(() -> {
                    if (!loop.inEventLoop() || !Thread.currentThread().getName().equals("peregrine-" + transport + "-0")) {
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
        } finally {
            stop(loop);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void theLoopDrivesItsTimerWheel(String transport) throws Exception {
        NativeEventLoop loop = start(transport);
        try {
            LoopContext ctx = loop.context();
            CompletableFuture<String> fired = new CompletableFuture<>();
            Timeout t = new Timeout() {
                @Override
                protected void onTimeout() {
                    fired.complete(Thread.currentThread().getName());
                }
            };
            loop.execute(() -> ctx.timers().schedule(t, 30, System.currentTimeMillis()));
            assertEquals("peregrine-" + transport + "-0", fired.get(30, TimeUnit.SECONDS));
        } finally {
            stop(loop);
        }
    }

    /**
     * A fine deadline of 2 ms ({@code LoopContext.scheduleFine}) ends the loop's wait itself, not at the
     * 10 ms tick: re-armed from its own firing 40 times, on the loop thread, the median from arming to
     * firing stays well under the tick (the loop's latency on a busy machine is the margin).
     */
    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void aFineDeadlineEndsTheWaitBeforeTheTick(String transport) throws Exception {
        NativeEventLoop loop = start(transport);
        try {
            LoopContext ctx = loop.context();
            long[] took = new long[40];
            CompletableFuture<String> done = new CompletableFuture<>();
            dev.peregrine.loop.FineTimeout t = new dev.peregrine.loop.FineTimeout() {
                int n;
                long armedAt;

                void arm() {
                    armedAt = System.nanoTime();
                    ctx.scheduleFine(this, 2);
                }

                @Override
                protected void onTimeout() {
                    took[n++] = System.nanoTime() - armedAt;
                    if (n < took.length) {
                        arm();
                    } else {
                        done.complete(Thread.currentThread().getName());
                    }
                }

                @Override
                public String toString() {
                    arm();
                    return "armed";
                }
            };
            loop.execute(t::toString);
            assertEquals("peregrine-" + transport + "-0", done.get(30, TimeUnit.SECONDS));
            java.util.Arrays.sort(took);
            long median = took[took.length / 2] / 1_000_000;
            assertTrue(took[0] >= 2_000_000, "never before its delay: " + took[0] + " ns");
            assertTrue(median < 8, "median " + median + " ms from arming to firing (the wheel's tick is 10 ms)");
        } finally {
            stop(loop);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void tasksAfterStopAreDropped(String transport) throws Exception {
        NativeEventLoop loop = start(transport);
        stop(loop);
        loop.execute(() -> {
            throw new AssertionError("ran after shutdown");
        });
        assertFalse(loop.executeOrDrop(() -> { }));
    }
}
