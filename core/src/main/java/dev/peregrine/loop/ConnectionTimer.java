package dev.peregrine.loop;

/**
 * A connection's one timer node and its phases: the superclass of {@link Connection}, so that the
 * node costs no object of its own. A connection waits for one thing at a time, so one intrusive node
 * in the loop's {@link TimerWheel} serves every phase:
 * <pre>
 *   phase          while                          clock starts / restarts         on expiry
 *   DRAIN   (-2)   DRAINING                       FIN sent                        close (drainTimeout)
 *   WRITE   (-1)   output pending                 last byte the peer took         close (writeTimeout)
 *   protocol (&gt;0)  otherwise: Protocol#timerPhase  phase entered; progress only    Protocol#onTimeout
 *                                                 if progressRestarts(phase)
 *   NONE    (0)    the protocol waits on a deadline of its own: not armed
 * </pre>
 * The wheel is touched only when the phase changes ({@link #updateTimer}); progress inside a phase
 * stores the time in {@code timerSince}, and an expiry that finds the deadline moved re-arms for the
 * rest. So a keep-alive request arriving whole costs one field store, no wheel operation.
 *
 * <p>Thread: the owning loop thread only.
 */
abstract class ConnectionTimer extends Timeout {
    static final int PHASE_NONE = 0;
    static final int PHASE_WRITE = -1;
    static final int PHASE_DRAIN = -2;

    final LoopContext ctx;
    private int timerPhase = PHASE_NONE;
    /** When the current phase's clock started, loop clock milliseconds. */
    private long timerSince;
    /** The protocol finished a unit of work: a phase whose clock progress does not restart, restarts. */
    private boolean restartPhase;

    ConnectionTimer(LoopContext ctx) {
        this.ctx = ctx;
    }

    /** The phase the connection's state calls for now (see the table); not called once closed. */
    abstract int phaseNow();

    /** The protocol's timeout for its phase {@code phase} (&gt; 0). */
    abstract long protocolTimeout(int phase);

    /** Whether progress restarts the protocol's phase {@code phase}. */
    abstract boolean progressRestarts(int phase);

    /** The protocol's phase {@code phase} expired. */
    abstract void protocolTimedOut(int phase);

    /** Closes the connection at once (an expired WRITE or DRAIN phase). */
    public abstract void close();

    public abstract boolean isClosed();

    /** When the current timer phase's clock started (loop clock ms): a protocol's deadline within it. */
    public long timerSinceMillis() {
        return timerSince;
    }

    /** The protocol finished a unit of work: its current phase starts again (e.g. the next head's clock). */
    public void restartTimerPhase() {
        restartPhase = true;
    }

    /** Progress in the current phase (the peer took output): its clock starts again. */
    final void progressed() {
        timerSince = ctx.nowMillis;
    }

    /** A recycled connection's timer starts as a new one's (it was cancelled at the close). */
    final void resetTimer() {
        timerPhase = PHASE_NONE;
        timerSince = 0;
        restartPhase = false;
    }

    /** Takes the node off the wheel (the connection closed). */
    final void cancelTimer() {
        ctx.timers.cancel(this);
        timerPhase = PHASE_NONE;
    }

    /**
     * Puts the timer in the phase the connection's state calls for: a new phase arms the wheel;
     * progress in the same phase only moves {@code timerSince}.
     */
    public void updateTimer() {
        if (isClosed()) {
            return;
        }
        int phase = phaseNow();
        boolean restart = restartPhase;
        restartPhase = false;
        if (phase == PHASE_NONE) {
            if (timerPhase != PHASE_NONE) {
                ctx.timers.cancel(this); // the protocol waits on a deadline of its own
                timerPhase = PHASE_NONE;
            }
            return;
        }
        long now = ctx.nowMillis;
        boolean restarts = phase > 0 && progressRestarts(phase);
        if (phase != timerPhase || (restart && phase > 0 && !restarts)) {
            timerPhase = phase;
            timerSince = now;
            ctx.timers.schedule(this, phaseTimeout(phase), now);
        } else if (restarts) {
            timerSince = now;
        }
    }

    private long phaseTimeout(int phase) {
        if (phase == PHASE_WRITE) {
            return ctx.config.writeTimeoutMillis();
        }
        if (phase == PHASE_DRAIN) {
            return ctx.config.drainTimeoutMillis();
        }
        return protocolTimeout(phase);
    }

    /** The wheel found this connection's deadline passed, or moved by progress since it was armed. */
    @Override
    protected final void onTimeout() {
        if (timerPhase == PHASE_NONE || isClosed()) {
            return;
        }
        long now = ctx.nowMillis;
        long deadline = timerSince + phaseTimeout(timerPhase);
        if (now < deadline) {
            ctx.timers.schedule(this, deadline - now, now);
            return;
        }
        int phase = timerPhase;
        timerPhase = PHASE_NONE;
        if (phase == PHASE_WRITE) {
            ctx.metrics.timedOut(LoopMetrics.TIMEOUT_WRITE);
            close();
        } else if (phase == PHASE_DRAIN) {
            ctx.metrics.timedOut(LoopMetrics.TIMEOUT_DRAIN);
            close();
        } else {
            ctx.tick();
            protocolTimedOut(phase);
        }
    }
}
