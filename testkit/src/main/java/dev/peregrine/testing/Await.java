package dev.peregrine.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition by polling it against a generous deadline: the one way tests wait for
 * something another thread does (never a fixed sleep, never a timing assertion). The deadline is a
 * bound only a broken server reaches; a healthy one meets the condition in milliseconds.
 *
 * <pre>{@code
 * Await.until("the connection closed", () -> server.metrics().open == 0);
 * Await.until(() -> s.metrics().lentBuffers == 0, () -> "buffers still lent: " + s.metrics());
 * }</pre>
 *
 * Thread: the caller's; the condition is evaluated on it, every millisecond.
 */
public final class Await {
    /** How long a condition may take before the test fails. */
    public static final Duration LIMIT = Duration.ofSeconds(30);

    private static final long POLL_NS = 1_000_000L;

    private Await() {
    }

    /** Polls {@code condition} until it holds; fails with {@code what} after {@link #LIMIT}. */
    public static void until(String what, BooleanSupplier condition) {
        until(condition, () -> what);
    }

    /**
     * Polls {@code condition} until it holds; after {@link #LIMIT} fails with the message
     * {@code whatFailed} gives then (so it can show the state that was reached).
     *
     * @throws AssertionError when the condition does not hold in time
     */
    public static void until(BooleanSupplier condition, Supplier<String> whatFailed) {
        long deadline = System.nanoTime() + LIMIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not reached within " + LIMIT.toSeconds() + " s: " + whatFailed.get());
            }
            LockSupport.parkNanos(POLL_NS);
        }
    }
}
