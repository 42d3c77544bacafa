package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.FineTimeout;

/**
 * The write side of one teleport server connection: where its frames gather and when they leave, as
 * the client's batches do ({@code teleportMaxBatchDelay}, {@code teleportMaxBatchFrames},
 * {@code teleportMaxBatchBytes}: docs/teleport.md). One compress (with a {@link StreamCodec}) and one
 * write per batch.
 * <pre>
 *   frames --&gt; out(): the writer's plain batch (compressing)
 *                     | the loop's write buffer itself (no delay, during the connection's input turn)
 *                     | PendingFrames (off-heap, kept across loop turns)
 *   added(): frames / bytes reach the cap --&gt; cut() + write now (bytes: in the loop's write buffer, what it
 *            holds since its last write, so a batch past a full buffer leaves in full writes)
 *   delay 0:  end of the input turn --&gt; cut() (the connection writes it as the turn ends);
 *             frames added by loop tasks (off-loop answers) --&gt; one task queued behind them: cut() + write
 *   delay d:  the first frame of a batch arms a fine timer of the loop --&gt; at d: cut() + write
 * </pre>
 * {@code cut()} moves the batch into the connection's write buffer: compressed, or copied from
 * {@link PendingFrames}; with no delay and no compression frames written during the input turn are
 * there already, and nothing is copied.
 *
 * <p>Thread: the connection's loop.
 */
final class ServerBatch {
    private final Connection c;
    private final TeleportLoop tl;
    private StreamCodec writer;
    private PendingFrames pending;
    /** During the connection's input turn (its batch leaves when the turn ends). */
    private boolean inInput;
    private int frames;
    private long bytes;
    private boolean taskQueued;
    private final Runnable task = this::taskFlush;
    private final FineTimeout timer = new FineTimeout() {
        @Override
        protected void onTimeout() {
            write();
        }
    };

    ServerBatch(Connection c, TeleportLoop tl) {
        this.c = c;
        this.tl = tl;
    }

    /** After the handshake: the compression this side writes, or null. */
    void writer(StreamCodec w) {
        this.writer = w;
    }

    /** The connection's input turn begins: frames may go straight into the loop's write buffer. */
    void beginInput() {
        inInput = true;
    }

    /** Where the next frame goes ({@link #added} it after). */
    OutputSink out() {
        if (writer != null) {
            return writer.plain;
        }
        if (inInput && tl.maxBatchDelayMillis == 0) {
            return c;
        }
        if (pending == null) {
            pending = new PendingFrames();
        }
        return pending;
    }

    /** A frame of {@code length} bytes (header included) was appended to {@link #out()}. */
    void added(int length) {
        frames++;
        bytes += length;
        if (writer == null && inInput && tl.maxBatchDelayMillis == 0 && c.out().position() < bytes) {
            // Straight into the loop's write buffer, written whenever it filled (mid-frame): the batch's
            // bytes are what it holds since, so the byte cap does not cut the few after a full write
            // into a write of their own.
            bytes = c.out().position();
        }
        tl.countFrame();
        if (frames >= tl.maxBatchFrames || bytes >= tl.maxBatchBytes) {
            cut();
            c.flushBatch(); // the batch is full: it leaves now
            c.updateTimer();
            return;
        }
        if (!inInput) {
            schedule();
        }
    }

    private void schedule() {
        if (tl.maxBatchDelayMillis > 0) {
            if (!timer.scheduled()) {
                c.context().scheduleFine(timer, tl.maxBatchDelayMillis); // to the loop's latency, not the wheel's tick
            }
        } else if (!taskQueued) {
            taskQueued = true;
            c.context().eventLoop().execute(task); // behind the completions of this pass: they share the write
        }
    }

    /** The input turn ends: with no delay the batch moves into the connection's output (written as the turn ends). */
    void endInput() {
        inInput = false;
        if (frames == 0) {
            return;
        }
        if (tl.maxBatchDelayMillis == 0) {
            cut();
        } else {
            schedule();
        }
    }

    /** Whether frames wait to leave (the connection must not close before they do). */
    boolean waiting() {
        return frames > 0 || taskQueued;
    }

    private void taskFlush() {
        taskQueued = false;
        write();
    }

    /** Cuts the batch and writes it now (timer, task, shutdown, the peer's end of input). */
    void write() {
        if (c.isClosed()) {
            clear();
            return;
        }
        cut();
        c.flush();
        c.updateTimer();
    }

    /** Moves the batch into the connection's write buffer: one compress, or one copy. */
    void cut() {
        if (frames == 0) {
            return;
        }
        if (!c.isOpen() && c.state() != Connection.State.CLOSING) {
            clear(); // nothing may be left in the loop's shared buffer for a connection that writes no more
            return;
        }
        if (timer.scheduled()) {
            c.context().fineTimers().cancel(timer);
        }
        frames = 0;
        bytes = 0;
        tl.countBatch();
        if (writer != null) {
            writer.flush(c);
        } else if (pending != null && !pending.isEmpty()) {
            pending.moveTo(c);
        }
    }

    /** The connection closed: what waits is dropped. */
    void clear() {
        if (timer.scheduled()) {
            c.context().fineTimers().cancel(timer);
        }
        frames = 0;
        bytes = 0;
        if (pending != null) {
            pending.clear();
        }
    }
}
