package dev.peregrine;

import java.time.Duration;

/** The builders' argument checks: a bad value fails at the call, with the setting's name. */
final class Checks {
    private Checks() {
    }

    static long millis(Duration d, String what) {
        long ms = d.toMillis();
        if (ms <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + d);
        }
        return ms;
    }

    static int positive(int v, String what) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + v);
        }
        return v;
    }

    /** A route's own timeout in ms, checked at the call. */
    static long checkTimeout(Duration timeout, String what) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException(what + " must be positive: " + timeout);
        }
        return Math.max(1, timeout.toMillis());
    }
}
