package dev.peregrine.loop;

import dev.peregrine.buffer.OutputSink;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A connection's socket side: the one superclass of {@link Connection}, so that it costs no object of
 * its own (the timer is a part the connection owns, {@link ConnectionTimer}). It counts reads for the
 * readiness report and keeps the output.
 *
 * <p><b>Readiness report.</b> {@link #onReadable} returns whether a read moved bytes (or the end of
 * stream), or the connection asked to read again, so an edge-triggered transport knows when to stop
 * calling it without counting reads of its own.
 *
 * <p><b>Output.</b> The protocol encodes into the loop's
 * shared write buffer ({@link #out()}); the batch leaves in one write when the input that caused it has
 * been handled ({@link #flushBatch}). What the socket does not take is kept in a lent buffer
 * ({@link OutputBacklog}, made the first time the socket refuses bytes) and written when the socket is
 * writable ({@link #writePending}).
 * <pre>
 *   batch --flushBatch--&gt; socket takes all ------------------------------&gt; done (no object, no buffer)
 *                        \-- socket refuses some --&gt; backlog, write interest on
 *                                                     | more than maxPendingOutput: outputBacklogged() (pause reading)
 *   writable --writePending--&gt; backlog empty --&gt; write interest off, outputDrained() (drain, or resume reading)
 * </pre>
 * A failed write is {@link #outputFailed()}: the connection closes. Each write that moved bytes
 * restarts the WRITE phase's clock ({@link #progressed}).
 *
 * <p>Thread: the owning loop thread only.
 */
abstract class ConnectionIo implements OutputSink {
    final LoopContext ctx;
    /** The socket (or the layer over it); replaced when a recycled connection serves another. */
    SocketEndpoint io;
    /** Bytes the socket has not taken; created the first time it refuses some, then kept. */
    private OutputBacklog backlog;
    /**
     * The protocol wrote the socket itself (sendfile) and waits for writability: timed as pending output
     * (WRITE), so a peer that stops reading a file is closed after {@code writeTimeout} as for any output.
     */
    private boolean awaitingWritable;
    /** Reads made and read interest raised, for {@link #onReadable}'s report. */
    private int reads;
    private boolean interestRaised;
    /** No peer's ({@link Connection#detached}): its writes are not the loop's bytes out. */
    final boolean detached;

    ConnectionIo(LoopContext ctx, SocketEndpoint io, boolean detached) {
        this.ctx = ctx;
        this.io = io;
        this.detached = detached;
    }

    /** Progress in the WRITE phase (the peer took output): its clock starts again. */
    abstract void progressed();

    /** The socket is readable: read it, or not (paused, closing), as the connection's state says. */
    abstract void readable();

    /**
     * The socket has bytes (or EOF) to read. Returns whether the connection read it, or asked to read
     * it again, during the call: false means it takes no input now (paused, closing, closed) and an
     * edge-triggered transport should keep the readiness for later.
     */
    public final boolean onReadable() {
        int before = reads;
        interestRaised = false;
        readable();
        return reads != before || interestRaised;
    }

    /**
     * Reads from the socket into {@code dst} (for a protocol reading the socket itself in
     * {@link Protocol#onReadable}); -1 at end of stream.
     */
    public int read(ByteBuffer dst) throws IOException {
        int n = io.read(dst);
        if (n != 0) {
            // Only reads that moved something count for onReadable's report: a 0 means the socket is
            // empty, or a layer (TLS) waits on something that will call onReadable again by itself.
            reads++;
        }
        return n;
    }

    /** Turns the transport's read interest on or off, without touching the backpressure pause. */
    public void readInterest(boolean on) {
        interestRaised |= on;
        io.readInterest(on);
    }

    /** Whether output is still written (not once draining or closed): else a batch is dropped. */
    abstract boolean acceptsOutput();

    /** A write failed (the peer is gone): close. */
    abstract void outputFailed();

    /** More than {@code maxPendingOutput} bytes wait for the peer. */
    abstract void outputBacklogged();

    /** The backlog has just been written out. */
    abstract void outputDrained();

    @Override
    public ByteBuffer out() {
        return ctx.writeBuffer;
    }

    /** Writes what the batch holds now (the encoder calls this when the write buffer is full). */
    @Override
    public void drain() {
        flushBatch();
    }

    /** Writes the batch now; what the socket refuses is kept and written on writability. */
    public void flushBatch() {
        ByteBuffer out = ctx.writeBuffer;
        if (out.position() == 0) {
            return;
        }
        if (!acceptsOutput()) {
            out.clear();
            return;
        }
        out.flip();
        try {
            if (!hasPendingOutput()) {
                int n = io.write(out);
                if (!detached) {
                    ctx.metrics.bytesOut += n;
                }
                if (out.hasRemaining()) {
                    if (backlog == null) {
                        backlog = new OutputBacklog(ctx.pool);
                    }
                    backlog.append(out);
                    io.writeInterest(true);
                }
            } else {
                backlog.append(out);
                writePending();
            }
        } catch (IOException e) {
            out.clear();
            outputFailed();
            return;
        }
        out.clear();
        if (pendingOutput() > ctx.maxPendingOutput) {
            outputBacklogged(); // backpressure: stop reading until the peer takes its output
        }
    }

    /** Unsent bytes kept for this connection. */
    public int pendingOutput() {
        return backlog == null ? 0 : backlog.size();
    }

    final boolean hasPendingOutput() {
        return backlog != null && !backlog.isEmpty();
    }

    /** Whether the connection waits for the peer to take output (the WRITE timer phase). */
    final boolean writing() {
        return awaitingWritable || hasPendingOutput();
    }

    final boolean awaitingWritable() {
        return awaitingWritable;
    }

    /** Turns write readiness reports on (a protocol writing the socket itself, e.g. sendfile). */
    public void writeInterest(boolean on) {
        awaitingWritable = on;
        io.writeInterest(on || hasPendingOutput());
    }

    /** Writes what the backlog holds as far as the socket takes it. */
    final void writePending() {
        if (!hasPendingOutput()) {
            return;
        }
        try {
            int n = backlog.writeTo(io);
            ctx.metrics.bytesOut += n;
            if (n > 0) {
                progressed(); // the write timeout starts again
            }
        } catch (IOException e) {
            outputFailed();
            return;
        }
        if (backlog.isEmpty()) {
            io.writeInterest(false);
            outputDrained();
        } else {
            io.writeInterest(true);
        }
    }

    /** Drops what is pending (the connection closed). */
    final void releaseOutput() {
        if (backlog != null) {
            backlog.release();
        }
    }

    /** A recycled connection's socket side starts as a new one's, on {@code socket}. */
    final void resetIo(SocketEndpoint socket) {
        io = socket;
        awaitingWritable = false;
        reads = 0;
        interestRaised = false;
    }
}
