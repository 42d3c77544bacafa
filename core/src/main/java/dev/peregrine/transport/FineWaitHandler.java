package dev.peregrine.transport;

import dev.peregrine.loop.FineTimers;
import dev.peregrine.loop.LoopContext;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ThreadAwareExecutor;
import io.netty.util.concurrent.Ticker;

/**
 * The native transports' {@code IoHandler} (epoll's or io_uring's) with the loop's {@link FineTimers}
 * folded into its wait: Netty's loop hands the handler an {@link IoHandlerContext} whose deadline is its
 * nearest scheduled task (for us, the 10 ms tick that drives the timer wheel); while a fine deadline is
 * armed this passes a context whose deadline is the sooner of the two, so {@code epoll_wait}'s timerfd /
 * io_uring's timeout wakes the loop for it, and after each wait fires the fine deadlines that are due
 * ({@link LoopContext#runFineTimers}). With none armed the loop's own context goes through unchanged:
 * no extra wake-up, no extra clock read.
 * <pre>
 *   Netty loop: runIo -&gt; run(ctx) -&gt; handler.run(ctx or ctx with min(deadline, fine)) -&gt; runFineTimers
 *               -&gt; tasks (the 10 ms tick among them) -&gt; runIo ...
 * </pre>
 * Netty's deadlines count from its ticker's origin ({@code deadlineNanos}), its delays from
 * {@link System#nanoTime()} ({@code delayNanos(now)}); the fine heap keeps {@link System#nanoTime()}.
 *
 * <p>Thread: the loop thread, but for {@link #wakeup} (any) and {@link #serve} (before the loop serves).
 */
final class FineWaitHandler implements IoHandler {
    private final IoHandler handler;
    /** The loop ticker's origin: Netty's deadline of a task = its {@link System#nanoTime()} minus this. */
    private final long originNanos;
    /** Set once before the loop runs anything of ours (the first task's hand-off publishes it). */
    private volatile LoopContext loop;
    private IoHandlerContext outer;
    private final IoHandlerContext finer = new IoHandlerContext() {
        @Override
        public boolean canBlock() {
            return outer.canBlock();
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            long delay = outer.delayNanos(currentTimeNanos);
            long fine = loop.fineTimers().nanosToNext(currentTimeNanos);
            return fine < 0 ? delay : Math.min(delay, fine);
        }

        @Override
        public long deadlineNanos() {
            long deadline = outer.deadlineNanos();
            FineTimers fine = loop.fineTimers();
            if (fine.isEmpty()) {
                return deadline;
            }
            long ours = fine.nextDeadlineNanos() - originNanos;
            return deadline == -1 || ours - deadline < 0 ? ours : deadline;
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

    FineWaitHandler(IoHandler handler, ThreadAwareExecutor executor) {
        this.handler = handler;
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

    @Override
    public int run(IoHandlerContext context) {
        LoopContext l = loop;
        if (l == null) {
            return handler.run(context);
        }
        int handled;
        if (l.fineTimers().isEmpty()) {
            handled = handler.run(context);
        } else {
            outer = context;
            handled = handler.run(finer);
        }
        l.runFineTimers();
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
}
