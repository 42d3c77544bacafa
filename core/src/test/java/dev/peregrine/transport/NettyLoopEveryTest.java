package dev.peregrine.transport;

import dev.peregrine.transport.epoll.EpollAvailability;
import dev.peregrine.transport.iouring.IoUringAvailability;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.uring.IoUringIoHandler;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link NettyLoop#every}: the periodic task (the loop's 10 ms tick) runs from the loop's own wait
 * ({@link FineWaitHandler}), not from Netty's scheduled-task queue. Set on a loop already waiting with
 * no deadline, it still runs; one that throws runs on, and so does the loop.
 */
class NettyLoopEveryTest {
    private static NettyLoop start(String transport) throws InterruptedException {
        IoHandlerFactory factory;
        if (transport.equals("epoll")) {
            Assumptions.assumeTrue(EpollAvailability.isAvailable(), EpollAvailability::unavailabilityReason);
            factory = EpollIoHandler.newFactory();
        } else {
            Assumptions.assumeTrue(IoUringAvailability.isAvailable(), IoUringAvailability::unavailabilityReason);
            factory = IoUringIoHandler.newFactory();
        }
        NettyLoop loop = new NettyLoop("peregrine-every-test", factory, transport.equals("epoll"));
        CountDownLatch started = new CountDownLatch(1);
        assertTrue(loop.execute(started::countDown));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        return loop;
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void aTaskSetWhileTheLoopWaitsRunsOnTheLoopEveryPeriod(String transport) throws Exception {
        NettyLoop loop = start(transport);
        try {
            // The loop now waits for I/O or a task, with no deadline of ours yet.
            AtomicInteger offLoop = new AtomicInteger();
            CountDownLatch runs = new CountDownLatch(5);
            loop.every(5, () -> {
                if (!loop.inEventLoop()) {
                    offLoop.incrementAndGet();
                }
                runs.countDown();
            });
            assertTrue(runs.await(10, TimeUnit.SECONDS), "the periodic task ran five times");
            assertEquals(0, offLoop.get());
        } finally {
            loop.shutdown(5_000);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring"})
    void aTaskThatThrowsRunsOnAndSoDoesTheLoop(String transport) throws Exception {
        NettyLoop loop = start(transport);
        try {
            CountDownLatch runs = new CountDownLatch(3);
            loop.every(5, () -> {
                runs.countDown();
                throw new IllegalStateException("thrown by the test's periodic task (expected in the log)");
            });
            assertTrue(runs.await(10, TimeUnit.SECONDS), "the periodic task ran on after throwing");
            CountDownLatch task = new CountDownLatch(1);
            assertTrue(loop.execute(task::countDown));
            assertTrue(task.await(10, TimeUnit.SECONDS), "the loop still runs tasks");
        } finally {
            loop.shutdown(5_000);
        }
    }
}
