package dev.peregrine.e2e;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Waits for a condition with a generous deadline (never a fixed sleep, never a timing assertion). */
final class Await {
    static final Duration LIMIT = Duration.ofSeconds(20);

    private Await() {
    }

    static void until(BooleanSupplier condition, Supplier<String> whatFailed) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not reached within " + LIMIT.toSeconds() + " s: " + whatFailed.get());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
