package dev.peregrine.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ConnectionLimit}'s pause/release protocol under contention, with threads standing in for the
 * loops and for the connections' closes: no acquire past the limit, and no lost wake-up (a loop that
 * paused while a slot was freed must be resumed by one side or the other, or the run never ends).
 *
 * <p>A lost wake-up shows as this test hanging until JUnit's {@code @Timeout} fails it: a guard, not
 * a timing assertion (the run takes well under a second).
 */
class ConnectionLimitStressTest {
    private static final int LOOPS = 4;
    private static final int ACQUISITIONS_PER_LOOP = 20_000;

    @Test
    @Timeout(120)
    void everyPausedLoopIsResumedAndTheLimitHolds() throws InterruptedException {
        for (int max : new int[] {1, 3}) {
            run(max);
        }
    }

    private static void run(int max) throws InterruptedException {
        ConnectionLimit limit = new ConnectionLimit(max, LOOPS);
        Semaphore[] wake = new Semaphore[LOOPS];
        for (int i = 0; i < LOOPS; i++) {
            Semaphore s = new Semaphore(0);
            wake[i] = s;
            limit.resumer(i, s::release); // a resumer only signals the loop, as EventLoop.execute does
        }
        BlockingQueue<Integer> open = new ArrayBlockingQueue<>(max);
        AtomicInteger peak = new AtomicInteger();
        AtomicLong resumedByRelease = new AtomicLong();
        AtomicLong resumedBySelf = new AtomicLong();
        int total = LOOPS * ACQUISITIONS_PER_LOOP;

        Thread closer = new Thread(() -> {
            try {
                for (int n = 0; n < total; n++) {
                    open.take();
                    limit.release();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "closer");
        closer.start();

        Thread[] loops = new Thread[LOOPS];
        for (int i = 0; i < LOOPS; i++) {
            int loop = i;
            loops[i] = new Thread(() -> {
                int accepted = 0;
                try {
                    while (accepted < ACQUISITIONS_PER_LOOP) {
                        if (limit.tryAcquire()) {
                            peak.accumulateAndGet(limit.open(), Math::max);
                            open.put(loop);
                            accepted++;
                        } else if (limit.pause(loop)) {
                            resumedBySelf.incrementAndGet();
                        } else {
                            wake[loop].acquire();
                            resumedByRelease.incrementAndGet();
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "loop-" + i);
            loops[i].start();
        }
        for (Thread t : loops) {
            t.join();
        }
        closer.join();

        assertEquals(0, limit.open(), "every acquisition was released");
        assertTrue(peak.get() <= max, "open peaked at " + peak.get() + " over a limit of " + max);
        assertTrue(resumedByRelease.get() + resumedBySelf.get() > 0, "the loops never had to pause: no contention tested");
    }
}
