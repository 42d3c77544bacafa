package dev.peregrine.loop;

/**
 * A connection's one timer node and its phases, owned by the {@link Connection} (one small object per
 * connection, made with it and kept across its reuse). A connection waits for one thing at a time, so
 * one intrusive node in the loop's {@link TimerWheel} serves every phase:
 * <pre>
 *   phase          while                          clock starts / restarts         on expiry
 *   DRAIN   (-2)   DRAINING                       FIN sent                        close (drainTimeout)
 *   WRITE   (-1)   output pending                 last byte the peer took         close (writeTimeout)
 *   protocol (&gt;0)  otherwise: Protocol#timerPhase  phase entered; progress only    Protocol#onTimeout
 *                                                 if progressRestarts(phase)
 *   NONE    (0)    the protocol waits on a deadline of its own: not armed
 * </pre>
 * The wheel is touched only when the phase changes ({@link #update}); progress inside a phase, and a
 * restart of it ({@link #restartPhase}), store the time in {@code timerSince}, and an expiry that finds
 * the deadline moved re-arms for the rest. So a keep-alive request arriving whole costs one call
 * ({@link #update}) and one field store, no wheel operation: the HTTP/1.1 protocol restarts its phase
 * only when the next request's head is left incomplete, the one case where the restart is not the
 * IDLE phase's own progress.
 *
 * <p>Thread: the owning loop thread only.
 */
final class ConnectionTimer extends Timeout {
    static final int PHASE_NONE = 0;
    static final int PHASE_WRITE = -1;
    static final int PHASE_DRAIN = -2;

    // The loop is the connection's (Connection#ctx), and a phase fits a byte (Protocol#timerPhase: at most
    // 127): 48 bytes with the wheel's node fields, as every connection, idle or not, holds one (issue 28).
    /** Whose phases these are: asked for the phase its state calls for, told when one expires. */
    private final Connection connection;
    private byte timerPhase = PHASE_NONE;
    /** When the current phase's clock started, loop clock milliseconds. */
    private long timerSince;

    ConnectionTimer(Connection connection) {
        this.connection = connection;
    }

    /** When the current phase's clock started (loop clock ms): a protocol's deadline within it. */
    long since() {
        return timerSince;
    }

    /**
     * The protocol finished a unit of work: its current phase starts again (e.g. the next head's clock).
     * Only {@code timerSince} moves, as progress moves it: the wheel's node stays where it is, and its
     * expiry finds the deadline moved and re-arms for the rest ({@link #onTimeout}). A phase of the
     * connection's (WRITE, DRAIN) is not the protocol's to restart; and should the next {@link #update}
     * find another phase called for, that phase starts anyway.
     */
    void restartPhase() {
        if (timerPhase > 0) {
            timerSince = connection.ctx.nowMillis;
        }
    }

    /** Progress in the current phase (the peer took output): its clock starts again. */
    void progressed() {
        timerSince = connection.ctx.nowMillis;
    }

    /** A recycled connection's timer starts as a new one's (it was cancelled at the close). */
    void reset() {
        timerPhase = PHASE_NONE;
        timerSince = 0;
    }

    /** Takes the node off the wheel (the connection closed). */
    void cancel() {
        connection.ctx.timers.cancel(this);
        timerPhase = PHASE_NONE;
    }

    /**
     * Puts the timer in the phase the connection's state calls for: a new phase arms the wheel;
     * progress in the same phase only moves {@code timerSince}.
     */
    void update() {
        if (connection.isClosed()) {
            return;
        }
        int phase = connection.phaseNow();
        if (phase > Byte.MAX_VALUE) {
            throw new IllegalStateException("a protocol's timer phase is at most 127, got " + phase);
        }
        if (phase == PHASE_NONE) {
            if (timerPhase != PHASE_NONE) {
                connection.ctx.timers.cancel(this); // the protocol waits on a deadline of its own
                timerPhase = PHASE_NONE;
            }
            return;
        }
        long now = connection.ctx.nowMillis;
        boolean restarts = phase > 0 && connection.progressRestarts(phase);
        if (phase != timerPhase) {
            timerPhase = (byte) phase;
            timerSince = now;
            connection.ctx.timers.schedule(this, phaseTimeout(phase), now);
        } else if (restarts) {
            timerSince = now;
        }
    }

    private long phaseTimeout(int phase) {
        if (phase == PHASE_WRITE) {
            return connection.ctx.config.writeTimeoutMillis();
        }
        if (phase == PHASE_DRAIN) {
            return connection.ctx.config.drainTimeoutMillis();
        }
        return connection.protocolTimeout(phase);
    }

    /** The wheel found this connection's deadline passed, or moved by progress since it was armed. */
    @Override
    protected void onTimeout() {
        if (timerPhase == PHASE_NONE || connection.isClosed()) {
            return;
        }
        long now = connection.ctx.nowMillis;
        long deadline = timerSince + phaseTimeout(timerPhase);
        if (now < deadline) {
            connection.ctx.timers.schedule(this, deadline - now, now);
            return;
        }
        int phase = timerPhase;
        timerPhase = PHASE_NONE;
        if (phase == PHASE_WRITE) {
            connection.ctx.metrics.timedOut(LoopMetrics.TIMEOUT_WRITE);
            connection.close();
        } else if (phase == PHASE_DRAIN) {
            connection.ctx.metrics.timedOut(LoopMetrics.TIMEOUT_DRAIN);
            connection.close();
        } else {
            connection.ctx.tick();
            connection.protocolTimedOut(phase);
        }
    }
}
