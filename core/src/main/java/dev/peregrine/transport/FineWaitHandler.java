package dev.peregrine.transport;

import dev.peregrine.loop.FineTimers;
import dev.peregrine.loop.LoopContext;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.concurrent.Ticker;

/**
 * The native transports' {@code IoHandler} (epoll's or io_uring's) with the loop's own deadlines folded
 * into its wait: the periodic task ({@link #every}: for us the 10 ms tick that drives the timer wheel)
 * and the loop's {@link FineTimers}. Netty's loop hands the handler an {@link IoHandlerContext} whose
 * deadline is its nearest scheduled task (we schedule none: Netty's only wake-ups are its task queue's);
 * this passes a context whose deadline is the soonest of that, the periodic task's next run and the
 * nearest fine deadline, so {@code epoll_wait}'s timerfd / io_uring's timeout wakes the loop for them,
 * and after each wait fires the fine deadlines that are due ({@link LoopContext#runFineTimers}) and the
 * periodic task when it is due.
 * <pre>
 *   Netty loop: runIo -&gt; run(ctx) -&gt; newTurn -&gt; handler.run(ctx with min(ctx's deadline, periodic, fine))
 *               -&gt; runFineTimers -&gt; the periodic task if due -&gt; tasks -&gt; runIo ...
 * </pre>
 * On epoll each run is one turn of the loop ({@link LoopContext#newTurn}): the first ready event (or task)
 * of it that reaches a connection reads the loop clock, the others of the turn find it read. On io_uring a
 * run may span several kernel entries, so it marks no turns ({@link #oneWaitPerRun}).
 * Why not a Netty scheduled task ({@code scheduleAtFixedRate}), as the tick was: while one is queued
 * Netty reads the clock on every wake, several times (each {@code canBlock()} asks whether a scheduled
 * task is due, and {@code runAllTasks} again), and moves the task through its priority queue every
 * period; with none queued its {@code deadlineNanos()} still reads the clock (to answer "now + 1 s"),
 * so ours asks for its delay instead ({@code delayNanos(ourDeadline)}, no clock read). Here a wake costs
 * one {@link System#nanoTime()} of ours (the transports' own reads to turn a deadline into a timeout
 * are as they were for Netty's task).
 * <p>Netty's deadlines count from its ticker's origin ({@code deadlineNanos}), its delays from
 * {@link System#nanoTime()} ({@code delayNanos(now)}); the fine heap and the periodic task keep
 * {@link System#nanoTime()}. The periodic task stops once the loop is shutting down, as Netty's
 * scheduled tasks did.
 *
 * <p>Thread: the loop thread, but for {@link #wakeup} (any), {@link #serve} (before the loop serves)
 * and {@link #every} (any, once).
 */
final class FineWaitHandler implements IoHandler {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private final IoHandler handler;
    /**
     * Whether one {@code handler.run} waits once and then handles what that wait returned (epoll's:
     * {@code epoll_wait}, then the ready events), so that a run is a turn of the loop. io_uring's run is
     * not: after its wait it drains completions and submits again until neither finds work, so a
     * completion that arrived long after the run's first one (a request sent after a JFR recording was
     * started, on a busy machine) can land in the same run. There the loop clock is read per event, as
     * before turns were marked ({@link LoopContext#newTurn} never called).
     */
    private final boolean oneWaitPerRun;
    /** Netty's loop running this handler, asked whether it is shutting down (null: not an executor). */
    private final EventExecutor executor;
    /** The loop ticker's origin: Netty's deadline of a task = its {@link System#nanoTime()} minus this. */
    private final long originNanos;
    /** Set once before the loop runs anything of ours (the first task's hand-off publishes it). */
    private volatile LoopContext loop;
    /** Set once by {@link #every}, from any thread; null until then. */
    private volatile Periodic periodic;
    private IoHandlerContext outer;
    private final IoHandlerContext finer = new IoHandlerContext() {
        @Override
        public boolean canBlock() {
            return outer.canBlock();
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            long delay = outer.delayNanos(currentTimeNanos);
            Periodic p = periodic;
            if (p != null) {
                delay = Math.min(delay, Math.max(0, p.dueNanos - currentTimeNanos));
            }
            LoopContext l = loop;
            long fine = l == null ? -1 : l.fineTimers().nanosToNext(currentTimeNanos);
            return fine < 0 ? delay : Math.min(delay, fine);
        }

        @Override
        public long deadlineNanos() {
            Periodic p = periodic;
            long deadline;
            if (p == null) {
                deadline = outer.deadlineNanos();
            } else if (outer.delayNanos(p.dueNanos) > 0) {
                // No Netty scheduled task is due before ours (with none queued Netty answers its 1 s
                // purge interval). Asked for its deadline instead, Netty would read the clock to say
                // "now + 1 s"; asked for its delay from our deadline, it reads none.
                deadline = p.dueNanos - originNanos;
            } else {
                deadline = sooner(outer.deadlineNanos(), p.dueNanos - originNanos); // a task: no clock read
            }
            LoopContext l = loop;
            if (l == null || l.fineTimers().isEmpty()) {
                return deadline;
            }
            return sooner(deadline, l.fineTimers().nextDeadlineNanos() - originNanos);
        }

        @Override
        public void reportActiveIoTime(long activeNanos) {
            outer.reportActiveIoTime(activeNanos);
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            return outer.shouldReportActiveIoTime();
        }
    };

    FineWaitHandler(IoHandler handler, boolean oneWaitPerRun, ThreadAwareExecutor executor) {
        this.handler = handler;
        this.oneWaitPerRun = oneWaitPerRun;
        this.executor = executor instanceof EventExecutor ? (EventExecutor) executor : null;
        Ticker ticker = executor instanceof EventExecutorGroup ? ((EventExecutorGroup) executor).ticker() : Ticker.systemTicker();
        this.originNanos = ticker.initialNanoTime();
    }

    /** The loop whose fine deadlines this waits for. */
    void serve(LoopContext loop) {
        this.loop = loop;
    }

    @Override
    public void initialize() {
        handler.initialize();
    }

    /**
     * Runs {@code task} on the loop every {@code periodNanos}, first one period from now, right after
     * the wait that reaches its time (a loop busy past a run skips the runs it missed rather than
     * catching up). {@code task} must not throw: what it throws is logged and the task runs on.
     */
    void every(long periodNanos, Runnable task) {
        if (periodic != null) {
            throw new IllegalStateException("a periodic task is already set");
        }
        periodic = new Periodic(task, periodNanos, System.nanoTime() + periodNanos);
    }

    /** Netty's deadline {@code a} or ours {@code b}, whichever is sooner ({@code -1}: none). */
    private static long sooner(long a, long b) {
        return a == -1 || b - a < 0 ? b : a;
    }

    @Override
    public int run(IoHandlerContext context) {
        LoopContext l = loop;
        Periodic p = periodic;
        if (l == null && p == null) {
            return handler.run(context);
        }
        if (l != null && oneWaitPerRun) {
            l.newTurn(); // what the wait returns (and the tasks after it) is a new turn: its first event reads the clock
        }
        int handled;
        if (p == null && l.fineTimers().isEmpty()) {
            handled = handler.run(context);
        } else {
            outer = context;
            handled = handler.run(finer);
        }
        if (l != null) {
            l.runFineTimers();
        }
        if (p != null && System.nanoTime() - p.dueNanos >= 0 && (executor == null || !executor.isShuttingDown())) {
            p.run();
        }
        return handled;
    }

    @Override
    public void prepareToDestroy() {
        handler.prepareToDestroy();
    }

    @Override
    public void destroy() {
        handler.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return handler.register(handle);
    }

    @Override
    public void wakeup() {
        handler.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return handler.isCompatible(handleType);
    }

    /** The periodic task and when it next runs ({@link System#nanoTime()}; the loop thread moves it). */
    private static final class Periodic {
        final Runnable task;
        final long periodNanos;
        long dueNanos;

        Periodic(Runnable task, long periodNanos, long dueNanos) {
            this.task = task;
            this.periodNanos = periodNanos;
            this.dueNanos = dueNanos;
        }

        void run() {
            long now = System.nanoTime();
            dueNanos += periodNanos;
            if (dueNanos - now <= 0) {
                dueNanos = now + periodNanos; // held past a whole period: the missed runs are skipped
            }
            try {
                task.run();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.ERROR, "periodic task failed on " + Thread.currentThread().getName(), t);
            }
        }
    }
}
