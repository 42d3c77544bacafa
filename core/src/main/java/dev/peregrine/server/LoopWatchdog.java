package dev.peregrine.server;

import dev.peregrine.Handler;

import java.util.List;
import java.util.Map;

/**
 * Reports loops held by one inline handler call for longer than a threshold, as Vert.x's blocked
 * thread checker does: one WARNING naming the route, with the loop thread's stack, at most once per
 * {@link #QUIET_MILLIS} per loop.
 *
 * <p><b>How it costs the loop nothing measurable.</b> Around each inline handler call the loop
 * stores the handler and bumps a call counter ({@link ServerLoop#enterHandler},
 * {@link ServerLoop#exitHandler}): opaque stores, plain moves on x86, no clock read, no fence. This
 * thread wakes every {@code threshold / 2} and compares what it sees with its last look: the same
 * call still running for two looks {@code threshold} apart means the loop has been held at least that
 * long.
 *
 * <p>Thread: its own daemon thread; {@link #close} from any thread.
 */
public final class LoopWatchdog implements AutoCloseable {
    /** After a warning, a loop is not reported again for this long. */
    static final long QUIET_MILLIS = 10_000;
    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    private final List<ServerLoop> loops;
    private final Map<Handler, String> routeNames;
    private final long thresholdMillis;
    private final Thread thread;
    private volatile boolean closed;

    /**
     * @param loops the loops to watch
     * @param routeNames how to name each registered handler in a warning (e.g. {@code GET /db})
     * @param thresholdMillis how long one handler call may hold a loop before it is reported
     */
    public LoopWatchdog(List<ServerLoop> loops, Map<Handler, String> routeNames, long thresholdMillis) {
        this.loops = List.copyOf(loops);
        this.routeNames = routeNames;
        this.thresholdMillis = thresholdMillis;
        this.thread = new Thread(this::run, "peregrine-watchdog");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        int n = loops.size();
        long[] seenCall = new long[n];
        long[] seenSince = new long[n];
        long[] quietUntil = new long[n];
        long periodNanos = Math.max(1, thresholdMillis / 2) * 1_000_000L;
        while (!closed) {
            java.util.concurrent.locks.LockSupport.parkNanos(periodNanos);
            long now = System.nanoTime();
            for (int i = 0; i < n; i++) {
                ServerLoop ctx = loops.get(i);
                Handler running = ctx.runningHandler();
                long call = ctx.handlerCalls();
                if (running == null || call != seenCall[i]) {
                    seenCall[i] = call;
                    seenSince[i] = now;
                    continue;
                }
                long heldMillis = (now - seenSince[i]) / 1_000_000L;
                if (heldMillis >= thresholdMillis && now - quietUntil[i] >= 0) {
                    quietUntil[i] = now + QUIET_MILLIS * 1_000_000L;
                    report(ctx, running, heldMillis);
                }
            }
        }
    }

    private void report(ServerLoop ctx, Handler running, long heldMillis) {
        Thread loop = ctx.loop.loopThread();
        Throwable where = new Throwable("stack of " + (loop == null ? "the loop" : loop.getName()));
        if (loop != null) {
            where.setStackTrace(loop.getStackTrace());
        }
        ctx.metrics.blockedLoopWarnings++;
        String route = routeNames.getOrDefault(running, running.toString());
        LOG.log(System.Logger.Level.WARNING, "handler for " + route + " has held event loop "
                + (loop == null ? "?" : loop.getName()) + " for " + heldMillis + " ms: other connections"
                + " of this loop wait meanwhile. Run it off the loop: .route(..., Execution.BLOCKING, handler)"
                + " or Server.Builder.execution(Execution.BLOCKING). (Not reported again for this loop"
                + " for " + QUIET_MILLIS / 1000 + " s.)", where);
    }

    /** Stops watching. Thread: any. */
    @Override
    public void close() {
        closed = true;
        java.util.concurrent.locks.LockSupport.unpark(thread);
    }
}
