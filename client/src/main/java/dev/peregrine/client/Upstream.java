package dev.peregrine.client;

import java.net.URI;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One backend of a {@link BalancingClient}: its origin, the {@link HttpSender} that reaches it, its
 * load (calls pending, calls sent) and whether it is ejected.
 * <pre>
 *   HEALTHY --ejectAfter failures in a row--&gt; EJECTED until now + base x 2^(ejections - 1), at most max
 *   EJECTED --that time passed, a call claims the one trial--&gt; PROBING (no other call while the trial runs)
 *   PROBING --trial answered--&gt; HEALTHY (ejections forgotten)
 *           --trial failed--&gt;   EJECTED again, for twice as long
 *   any state --active health probe answered 2xx--&gt; HEALTHY;  a failed probe counts as a failure
 * </pre>
 * A failure is a {@link ClientException} of phase CONNECT, READ or TOTAL, or a response the
 * balancer's {@code failureIf} predicate names. An ejected upstream gets no call at all, so a backend
 * that fails fast cannot draw the load that a least-pending rule would otherwise send it.
 *
 * <p>Thread: any. Counters are atomics; state changes hold the upstream's lock (they are rare).
 */
public final class Upstream {
    /** Where an upstream stands. */
    public enum State { HEALTHY, EJECTED, PROBING }

    private final URI origin;
    private final HttpSender sender;
    final AtomicInteger pending = new AtomicInteger();
    final AtomicLong sent = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private volatile State state = State.HEALTHY;
    private volatile long ejectedUntilNanos;
    private int failuresInARow;
    private int ejections;
    private boolean trialOut;

    Upstream(URI origin, HttpSender sender) {
        this.origin = origin;
        this.sender = sender;
    }

    /** {@code scheme://host:port} of the backend. */
    public URI origin() {
        return origin;
    }

    HttpSender sender() {
        return sender;
    }

    /** Calls sent to it and not yet answered. */
    public int pending() {
        return pending.get();
    }

    /** Calls sent to it so far (trials and probes not included in the latter). */
    public long sent() {
        return sent.get();
    }

    /** Failures counted against it so far. */
    public long failures() {
        return failures.get();
    }

    public State state() {
        return state;
    }

    /** Times it was ejected in a row (0 once it answers again). */
    public synchronized int ejections() {
        return ejections;
    }

    /** Whether a call may be sent now (a cheap look, without claiming the trial). */
    boolean selectable(long nowNanos) {
        State s = state;
        return s == State.HEALTHY || s == State.EJECTED && nowNanos - ejectedUntilNanos >= 0;
    }

    static final int REFUSED = 0;
    static final int NORMAL = 1;
    static final int TRIAL = 2;

    /**
     * Claims the right to send one call now: {@link #NORMAL} when healthy; {@link #TRIAL} for the one
     * call after an ejection ran out; else {@link #REFUSED}.
     */
    synchronized int claim(long nowNanos) {
        if (state == State.HEALTHY) {
            return NORMAL;
        }
        if (state == State.EJECTED && nowNanos - ejectedUntilNanos >= 0 && !trialOut) {
            state = State.PROBING;
            trialOut = true;
            return TRIAL;
        }
        return REFUSED;
    }

    /**
     * A call was answered and not judged a failure. Only the trial puts an ejected upstream back in
     * service: a late answer to a call sent before the ejection says little about now.
     */
    synchronized void succeeded(boolean trial) {
        if (trial) {
            trialOut = false;
            state = State.HEALTHY;
            ejections = 0;
            failuresInARow = 0;
        } else if (state == State.HEALTHY) {
            failuresInARow = 0;
        }
    }

    /** A call failed at {@code nowNanos}; ejects when the rule says so. */
    synchronized void failed(boolean trial, long nowNanos, int ejectAfter, long baseNanos, long maxNanos) {
        failures.incrementAndGet();
        if (trial) {
            trialOut = false;
            eject(nowNanos, baseNanos, maxNanos);
        } else if (state == State.HEALTHY && ++failuresInARow >= ejectAfter) {
            eject(nowNanos, baseNanos, maxNanos);
        } // a late failure of a call sent before the ejection: counted, the ejection stands as it is
    }

    private void eject(long nowNanos, long baseNanos, long maxNanos) {
        ejections++;
        long backoff = baseNanos << Math.min(ejections - 1, 30);
        ejectedUntilNanos = nowNanos + (backoff <= 0 || backoff > maxNanos ? maxNanos : backoff);
        state = State.EJECTED;
        failuresInARow = 0;
    }

    /** A health probe answered 2xx: back in service at once. */
    synchronized void probeSucceeded() {
        if (state == State.EJECTED) {
            state = State.HEALTHY;
            ejections = 0;
        }
        failuresInARow = 0;
    }

    /** When the current ejection ends (meaningful while {@link #state()} is EJECTED). */
    long ejectedUntilNanos() {
        return ejectedUntilNanos;
    }

    @Override
    public String toString() {
        return origin + " " + state + " pending=" + pending + " sent=" + sent + " failures=" + failures;
    }
}
