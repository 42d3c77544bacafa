package dev.peregrine.server;

import dev.peregrine.Handler;

import java.util.List;
import java.util.Map;

/**
 * Reports loops held by one inline handler call for longer than a threshold, as Vert.x's blocked
 * thread checker does: one WARNING naming the route, with the loop thread's stack, at most once per
 * {@link #QUIET_MILLIS} per loop. And loops held by many short calls: when inline handlers ran for
 * more than a share of an interval ({@code busyLoopWarning}, 50% of 1 s by default), one WARNING
 * naming the routes and their shares, likewise at most once per {@link #QUIET_MILLIS} per loop, and
 * counted ({@code busyLoopWarnings}).
 *
 * <p><b>The share is sampled.</b> Each look (50 per interval, or every {@code threshold / 2} if that
 * is more often) notes whether a handler runs on each loop and which: the share of looks that found
 * one estimates the share of time (each look is a sample of the loop's state; 50 samples put the
 * estimate of a 60% load within about ±14% with 95% confidence, so a loop just above the line may
 * need two intervals). A window in which the single-call warning fired, or in which at most one call
 * ran (one long call: the single-call warning's to report), is not reported as busy.
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
    private final int busyPercent;
    private final long busyIntervalMillis;
    private final Thread thread;
    private volatile boolean closed;

    /**
     * @param loops the loops to watch
     * @param routeNames how to name each registered handler in a warning (e.g. {@code GET /db})
     * @param thresholdMillis how long one handler call may hold a loop before it is reported (0: never)
     * @param busyPercent the share of {@code busyIntervalMillis} handlers may hold a loop (0: never reported)
     * @param busyIntervalMillis the interval the share is measured over
     */
    public LoopWatchdog(List<ServerLoop> loops, Map<Handler, String> routeNames, long thresholdMillis,
                        int busyPercent, long busyIntervalMillis) {
        this.loops = List.copyOf(loops);
        this.routeNames = routeNames;
        this.thresholdMillis = thresholdMillis;
        this.busyPercent = busyPercent;
        this.busyIntervalMillis = busyIntervalMillis;
        this.thread = new Thread(this::run, "peregrine-watchdog");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        int n = loops.size();
        long[] seenCall = new long[n];
        long[] seenSince = new long[n];
        long[] quietUntil = new long[n];
        long[] busyQuietUntil = new long[n];
        Window[] windows = new Window[n];
        long now0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            windows[i] = new Window(now0);
        }
        long periodMillis = Long.MAX_VALUE;
        if (thresholdMillis > 0) {
            periodMillis = thresholdMillis / 2;
        }
        if (busyPercent > 0) {
            periodMillis = Math.min(periodMillis, busyIntervalMillis / 50);
        }
        long periodNanos = Math.max(1, periodMillis) * 1_000_000L;
        while (!closed) {
            java.util.concurrent.locks.LockSupport.parkNanos(periodNanos);
            look(System.nanoTime(), seenCall, seenSince, quietUntil, busyQuietUntil, windows);
        }
    }

    /**
     * One look at every loop. A method of its own, not the body of {@link #run}'s loop: called 50 times a
     * second it is compiled within seconds, where a loop body only gets on-stack replacement after
     * tens of thousands of iterations (minutes at this rate) and is interpreted until then.
     */
    private void look(long now, long[] seenCall, long[] seenSince, long[] quietUntil, long[] busyQuietUntil,
                      Window[] windows) {
        for (int i = 0; i < seenCall.length; i++) {
            ServerLoop ctx = loops.get(i);
            Handler running = ctx.runningHandler();
            long call = ctx.handlerCalls();
            if (busyPercent > 0) {
                busy(ctx, windows[i], running, call, now, busyQuietUntil, i);
            }
            if (thresholdMillis <= 0) {
                continue;
            }
            if (running == null || call != seenCall[i]) {
                seenCall[i] = call;
                seenSince[i] = now;
                continue;
            }
            long heldMillis = (now - seenSince[i]) / 1_000_000L;
            if (heldMillis >= thresholdMillis && now - quietUntil[i] >= 0) {
                quietUntil[i] = now + QUIET_MILLIS * 1_000_000L;
                windows[i].singleCallReported = true;
                report(ctx, running, heldMillis);
            }
        }
    }

    /** One loop's samples over the current interval. Watchdog thread only. */
    private static final class Window {
        long start;
        int samples;
        int held;
        boolean singleCallReported;
        /** The loop's call count when the window began (-1: not yet seen). */
        long callsAtStart = -1;
        /** Samples per handler found running. */
        final Map<Handler, int[]> byHandler = new java.util.IdentityHashMap<>();

        Window(long start) {
            this.start = start;
        }

        void restart(long now, long calls) {
            callsAtStart = calls;
            start = now;
            samples = 0;
            held = 0;
            singleCallReported = false;
            byHandler.clear();
        }
    }

    /** Adds this look's sample to the loop's window; at the window's end, reports a loop held past the share. */
    private void busy(ServerLoop ctx, Window w, Handler running, long call, long now, long[] quietUntil, int i) {
        if (w.callsAtStart < 0) {
            w.callsAtStart = call;
        }
        w.samples++;
        if (running != null) {
            w.held++;
            w.byHandler.computeIfAbsent(running, h -> new int[1])[0]++;
        }
        if (now - w.start < busyIntervalMillis * 1_000_000L) {
            return;
        }
        // One call that held the loop all window long is blockedLoopWarning's to report, not a busy loop.
        boolean oneCall = thresholdMillis > 0 && call - w.callsAtStart <= 1;
        if (w.samples >= 10 && w.held * 100L > (long) busyPercent * w.samples && !w.singleCallReported && !oneCall
                && now - quietUntil[i] >= 0) {
            quietUntil[i] = now + QUIET_MILLIS * 1_000_000L;
            reportBusy(ctx, w, (now - w.start) / 1_000_000L);
        }
        w.restart(now, call);
    }

    private void reportBusy(ServerLoop ctx, Window w, long windowMillis) {
        ctx.metrics.busyLoopWarnings++;
        StringBuilder routes = new StringBuilder();
        w.byHandler.entrySet().stream()
                .sorted((a, b) -> Integer.compare(b.getValue()[0], a.getValue()[0]))
                .limit(5)
                .forEach(e -> routes.append(routes.length() == 0 ? "" : ", ")
                        .append(routeNames.getOrDefault(e.getKey(), "a handler of the router's own"))
                        .append(' ').append(e.getValue()[0] * 100 / w.samples).append('%'));
        Thread loop = ctx.loop.loopThread();
        LOG.log(System.Logger.Level.WARNING, "inline handlers held event loop " + (loop == null ? "?" : loop.getName())
                + " for about " + (w.held * 100 / w.samples) + "% of the last " + windowMillis + " ms (over busyLoopWarning's "
                + busyPercent + "%), in calls too short for blockedLoopWarning: " + routes + ". Other connections of this"
                + " loop wait meanwhile. Run these routes off the loop: .route(..., Execution.BLOCKING, handler). (Not"
                + " reported again for this loop for " + QUIET_MILLIS / 1000 + " s.)");
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
