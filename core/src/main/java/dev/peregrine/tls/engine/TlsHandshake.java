package dev.peregrine.tls.engine;

import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Timeout;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The handshake side of one {@link TlsEndpoint}: whether the handshake is still under way, its
 * timer, the engine's delegated tasks, and the renegotiation rule. The endpoint drives the engine's
 * wrap and unwrap; this class decides when the engine belongs to another thread and when a
 * handshake has taken too long.
 *
 * <pre>
 *   IN PROGRESS --- engine FINISHED / NOT_HANDSHAKING (finish()) ---&gt; DONE (timer cancelled)
 *     |    ^
 *     |    | tasksDone (loop task): the engine is the loop's again; the endpoint reads on
 *     v    |
 *   TASKS RUNNING (NEED_TASK): on the TlsContext executor; the loop does not touch the engine,
 *                              and the endpoint's reads pause
 *   IN PROGRESS past handshakeTimeout: the endpoint closes the connection (one DEBUG line)
 * </pre>
 *
 * <p>Thread: the owning loop, but {@link #runTasks} on the executor, which hands the engine back
 * through {@link EventLoop#execute} (whose queue orders the two).
 */
final class TlsHandshake extends Timeout {
    private final TlsEndpoint endpoint;
    private final SSLEngine engine;
    private final LoopContext ctx;
    private final Executor executor;
    private final Runnable runTasks = this::runTasks;
    private final Runnable tasksDone = this::tasksDone;
    private boolean inProgress = true;
    private boolean taskRunning;

    /** Begins the handshake (so that NOT_HANDSHAKING later means "done") and starts its timer. */
    TlsHandshake(TlsEndpoint endpoint, SSLEngine engine, LoopContext ctx, Executor executor, long timeoutMillis) {
        this.endpoint = endpoint;
        this.engine = engine;
        this.ctx = ctx;
        this.executor = executor;
        try {
            engine.beginHandshake();
        } catch (SSLException e) {
            throw new IllegalStateException("TLS engine refused to start: " + e.getMessage(), e);
        }
        ctx.timers().schedule(this, timeoutMillis, System.currentTimeMillis());
    }

    /** Whether the handshake has not finished yet. */
    boolean inProgress() {
        return inProgress;
    }

    /** Whether the engine's delegated tasks run on the executor now: the loop must not touch the engine. */
    boolean taskRunning() {
        return taskRunning;
    }

    /** Marks the handshake done; true only the first time (the caller then takes the session's sizes). */
    boolean finish() {
        if (!inProgress) {
            return false;
        }
        inProgress = false;
        ctx.timers().cancel(this);
        return true;
    }

    /** The endpoint closes: no timer may fire for it. */
    void cancelTimer() {
        ctx.timers().cancel(this);
    }

    /**
     * Hands the engine's delegated tasks to the executor; the endpoint pauses reading until
     * {@link TlsEndpoint#tasksDone}.
     */
    void startTasks() throws SSLException {
        taskRunning = true;
        try {
            executor.execute(runTasks);
        } catch (RejectedExecutionException e) {
            taskRunning = false;
            throw new SSLException("TLS task executor stopped");
        }
    }

    /** On the executor: runs every delegated task, then gives the engine back to the loop. */
    private void runTasks() {
        try {
            Runnable task;
            while ((task = engine.getDelegatedTask()) != null) {
                task.run(); // failures surface from the next wrap/unwrap on the loop
            }
        } finally {
            ctx.eventLoop().execute(tasksDone);
        }
    }

    /** On the loop: the engine is ours again. */
    private void tasksDone() {
        taskRunning = false;
        endpoint.tasksDone();
    }

    /**
     * Whether a client began a new handshake on an established TLS 1.2 (or older) session: a
     * renegotiation, which costs the server a full handshake each time for the client's price of a
     * few bytes (CVE-2011-1473). It is refused by closing the connection (one DEBUG line), as nginx
     * does. TLS 1.3 has no renegotiation: its post-handshake messages (KeyUpdate) are left to the
     * engine.
     */
    boolean renegotiating(SSLEngineResult.HandshakeStatus hs) {
        if (inProgress || hs == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING
                || hs == SSLEngineResult.HandshakeStatus.FINISHED) {
            return false;
        }
        String protocol = engine.getSession().getProtocol();
        return !"TLSv1.3".equals(protocol);
    }

    /** The handshake timer: a peer that does not finish in time is closed. */
    @Override
    protected void onTimeout() {
        if (inProgress) {
            endpoint.handshakeTimedOut();
        }
    }
}
