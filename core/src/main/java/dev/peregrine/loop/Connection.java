package dev.peregrine.loop;

import dev.peregrine.buffer.BufferPool;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One connection, whatever it speaks: the layer between a transport's {@link SocketEndpoint} (TLS
 * being one) and a {@link Protocol}. It owns everything that is not the protocol's business:
 * reading into the loop's buffers and lending input, the batch of output and its backpressure, the
 * close sequence, and the connection's one timer node. Transports call {@link #onReadable},
 * {@link #onWritable}, {@link #shutdown} and {@link #close}; the protocol calls the rest.
 *
 * <p><b>Input.</b> Bytes are read into the loop's shared read buffer and offered to the protocol
 * there. Only what the protocol did not consume is copied into a buffer lent by the pool
 * ({@code input}); later reads append to it and the protocol is offered the whole again. An idle
 * connection holds no buffer.
 *
 * <p><b>Output.</b> The batch and what the socket refused are its superclass {@link ConnectionIo}'s
 * (drawn there); the batch leaves when the input that caused it has been handled ({@link #flush}).
 * While more than {@code maxPendingOutput} bytes wait, the connection is not read
 * ({@link #pauseReading}, counted in {@code readPauses}).
 *
 * <pre>
 *   OPEN ----------------------------------------------------------.
 *    | closeAfterOutput() (the protocol's last answer is queued)     | close(): error, timeout,
 *    v                                                               | peer gone with nothing to send
 *   CLOSING: nothing read; pending output and what the protocol      |
 *            still produces are written                              |
 *    | output empty and the protocol not producing                   |
 *    v                                                               |
 *   DRAINING: FIN sent; input discarded until EOF, an 8 MiB budget   |
 *             or drainTimeout                                         |
 *    v                                                               v
 *   CLOSED: timer cancelled, buffers back in the pool, protocol told, socket closed
 * </pre>
 * Draining instead of closing at once keeps the kernel from answering the client's unread bytes
 * with RST, which could destroy the last response before the client reads it.
 *
 * <p><b>Timer.</b> The connection owns one node in the loop's timer wheel, {@link ConnectionTimer},
 * where the phases (WRITE, DRAIN, or the protocol's) are drawn.
 *
 * <p><b>Reuse.</b> A closed plain connection may serve another socket ({@link ConnectionRecycler},
 * {@link #reopen}).
 *
 * <p><b>Readiness report.</b> {@link #onReadable} says whether the call read or asked to read again
 * (its superclass {@link ConnectionIo} counts).
 *
 * <p>Thread: the owning loop thread only.
 */
public final class Connection extends ConnectionIo {
    /** The connection's one node in the loop's timer wheel, and its phases. */
    private final ConnectionTimer timer;
    /** The close sequence (see the class javadoc). */
    public enum State { OPEN, CLOSING, DRAINING, CLOSED }

    /** Bytes of input held while the protocol is producing output before reading pauses. */
    static final int HOLD_LIMIT = 64 * 1024;

    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    private final BufferPool pool;
    private Protocol protocol;
    private State state = State.OPEN;
    /**
     * Input the protocol has not consumed yet (a lent buffer only while there is some); made the
     * first time input is left over or the connection drains, so a connection whose requests arrive
     * whole never has one.
     */
    private InputHold input;
    private boolean readPaused;
    /** writePending lifted the pause: input held meanwhile waits to be offered again. */
    private boolean resumedByDrain;
    /** The peer ended its input while the protocol was producing: close once that is answered. */
    private boolean peerEnded;
    /**
     * Made by the listener with no layer and never switched: may serve another socket after its close
     * if the protocol agrees ({@link ConnectionRecycler}).
     */
    private boolean reusable;
    /** A connection on {@code io} speaking {@code protocol}. Thread: the loop owning {@code ctx}. */
    public Connection(LoopContext ctx, SocketEndpoint io, Protocol protocol) {
        this(ctx, io, protocol, false);
    }

    private Connection(LoopContext ctx, SocketEndpoint io, Protocol protocol, boolean detached) {
        super(ctx, io, detached);
        this.timer = new ConnectionTimer(this);
        this.pool = ctx.pool;
        this.protocol = protocol;
        open();
    }

    /**
     * A connection on an endpoint that is no socket, for a protocol that hands off-loop code (which
     * writes responses to a {@code Connection}) a place of its own: teleport's buffered responses,
     * whose endpoint keeps what is written. Not counted in the loop's accepted and closed connections nor
     * its bytes out.
     * Thread: the loop owning {@code ctx}.
     */
    public static Connection detached(LoopContext ctx, SocketEndpoint io, Protocol protocol) {
        return new Connection(ctx, io, protocol, true);
    }

    /**
     * Whether this connection is {@link #detached detached}: no client's socket. Its owner reports what
     * fails on it (closing it truncates nobody's message), so code that writes to it logs no
     * "connection closed" WARNING of its own.
     */
    public boolean isDetached() {
        return detached;
    }

    /**
     * A plain connection the listener made, which {@link ConnectionRecycler} may keep after its close
     * for another socket. Thread: the loop owning {@code ctx}.
     */
    static Connection reusable(LoopContext ctx, SocketEndpoint io, Protocol protocol) {
        Connection c = new Connection(ctx, io, protocol);
        c.reusable = true;
        return c;
    }

    /**
     * This closed connection, kept by the {@link ConnectionRecycler}, now serves {@code socket} with the
     * same protocol object: every field is as a new connection's before the protocol hears
     * {@link Protocol#onOpen} again (it starts afresh there).
     */
    void reopen(SocketEndpoint socket) {
        resetIo(socket);
        timer.reset();
        state = State.OPEN;
        readPaused = false;
        resumedByDrain = false;
        peerEnded = false;
        open();
    }

    private void open() {
        if (!detached) {
            ctx.metrics.accepted++;
        }
        ctx.turnClock();
        protocol.onOpen(this);
        updateTimer();
    }

    // ---------------------------------------------------------------- transport events

    @Override
    void readable() {
        if (state == State.DRAINING) {
            discardInput();
            return;
        }
        try {
            if (state == State.OPEN && protocol.onReadable(this)) {
                return;
            }
            if (state != State.OPEN || readPaused) {
                if (state == State.CLOSING) {
                    // Nothing more is read until the last output is out; a level-triggered selector
                    // would otherwise report the peer's bytes again and again. startDraining turns it back on.
                    io.readInterest(false);
                }
                return;
            }
            ByteBuffer buf;
            int n;
            if (heldInput() != null) {
                n = input.readMore(this, protocol.expectedInput());
                if (n == InputHold.OVERFLOW) {
                    ctx.turnClock();
                    protocol.onInputOverflow(this);
                    if (state != State.OPEN) {
                        releaseInput();
                    }
                    flush();
                    updateTimer();
                    return;
                }
                buf = input.buffer();
            } else {
                buf = ctx.readBuffer;
                buf.clear();
                n = read(buf);
            }
            if (n < 0) {
                ctx.turnClock();
                peerEnded = true;
                protocol.onEndOfInput(this);
                return;
            }
            if (n == 0) {
                return;
            }
            ctx.metrics.bytesIn += n;
            resumedByDrain = false;
            process(buf, 0, buf == heldInput() ? input.length() : n);
            processHeld();
        } catch (IOException e) {
            close();
        }
    }

    /** The socket can take more of the pending output. */
    public void onWritable() {
        if (state == State.CLOSED) {
            return;
        }
        ctx.turnClock();
        try {
            if (!io.flushBuffered()) {
                return; // the endpoint's own bytes (TLS records) go first, even while draining
            }
        } catch (IOException e) {
            close();
            return;
        }
        if (state == State.DRAINING) {
            return;
        }
        if (awaitingWritable()) {
            progressed(); // the peer took bytes the protocol sent itself: the write timeout starts again
        } else if (!hasPendingOutput()) {
            io.writeInterest(false); // the event outputDrained asked for: reported once, not on every turn
        }
        boolean wasPaused = readPaused;
        writePending();
        if (state == State.CLOSED) {
            return;
        }
        if (protocol.producing()) {
            protocol.onOutputReady(this);
        } else if (wasPaused && !readPaused && state == State.OPEN && heldInput() != null) {
            resumedByDrain = true; // input that arrived while reading was paused
            processHeld();
        }
        updateTimer();
    }

    /**
     * Starts a graceful close from the loop (server shutdown); the protocol decides what is finished
     * first (see {@link Protocol#onShutdown}).
     */
    public void shutdown() {
        if (state == State.OPEN) {
            protocol.onShutdown(this);
        }
    }

    /**
     * A protocol threw: a bug of its own. Only this connection pays: its unwritten batch is dropped
     * (it may be half-encoded), it closes and returns its buffers, and one DEBUG line says why.
     */
    private void protocolFailed(RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "connection closed after its protocol " + protocol.getClass().getName() + " failed", e);
        close();
    }

    /** Closes at once and returns every lent buffer. Idempotent. */
    public void close() {
        if (state == State.CLOSED) {
            return;
        }
        // Whatever this connection left unwritten in the loop's shared batch buffer (only after a
        // failure: every event otherwise ends with the batch written) must not reach another peer.
        ctx.writeBuffer.clear();
        state = State.CLOSED;
        timer.cancel();
        releaseInput();
        protocol.onClosed(this);
        releaseOutput();
        if (!detached) {
            ctx.metrics.closed++;
        }
        io.close();
        if (reusable && protocol.recyclable()) {
            ctx.recycler.kept(this);
        }
    }

    // ---------------------------------------------------------------- input

    /**
     * Offers {@code [start, end)} of {@code buf} to the protocol (and to the protocol it switches to),
     * keeps what it left, and writes the batch.
     */
    private void process(ByteBuffer buf, int start, int end) {
        ctx.turnClock();
        int pos = start;
        try {
            while (true) {
                Protocol p = protocol;
                pos = p.onInput(this, buf, pos, end);
                if (protocol == p || state != State.OPEN || pos >= end) {
                    break; // a switch offers the rest to the new protocol at once
                }
            }
        } catch (RuntimeException e) {
            protocolFailed(e);
            return;
        }
        if (state == State.OPEN) {
            if (pos < end || input != null) {
                hold().keep(protocol, buf, pos, end, ctx.config.readBufferSize());
            }
            if (heldInputLength() > HOLD_LIMIT && !readPaused && protocol.producing()) {
                pauseReading(); // enough input held behind work under way; wait for it
            }
        } else {
            releaseInput();
        }
        flush();
        if (state != State.CLOSED) {
            protocol.onOutputReady(this);
        }
        updateTimer();
    }

    /**
     * Offers the input held while reading was paused, when the pause was lifted by the final flush of
     * {@link #process} (after the protocol had stopped at the pause): no writability event follows
     * then, and the peer may have nothing more to send.
     */
    private void processHeld() {
        while (resumedByDrain && !readPaused && state == State.OPEN && heldInput() != null) {
            resumedByDrain = false;
            process(input.buffer(), 0, input.length());
        }
        resumedByDrain = false;
    }


    /** The input held for the protocol ({@code [0, heldInputLength())}), or null when none is held. */
    public ByteBuffer heldInput() {
        return input == null ? null : input.buffer();
    }

    public int heldInputLength() {
        return input == null ? 0 : input.length();
    }

    /**
     * Holds {@code [from, to)} of {@code src} as input for the protocol's next {@link Protocol#onInput}:
     * bytes the protocol read itself ({@link Protocol#onReadable}) past what was its to take, such as
     * the next request behind a chunked body streamed from the socket. Offered with the held input
     * ({@link #resumeInput}, or the next read). Only while nothing is held (the protocol took all of it).
     */
    public void holdInput(ByteBuffer src, int from, int to) {
        hold().keep(protocol, src, from, to, ctx.config.readBufferSize());
    }

    /** Drops the held input (the protocol has answered it or given up on it). */
    public void releaseInput() {
        if (input != null) {
            input.release();
        }
    }

    private InputHold hold() {
        if (input == null) {
            input = new InputHold(pool);
        }
        return input;
    }

    /**
     * The protocol finished work that held input back (a response produced off the loop, a body in
     * pieces): lifts a pause when no output is pending, offers the held input again, and closes once
     * it is answered if the peer has meanwhile ended its input.
     */
    public void resumeInput() {
        ctx.turnClock();
        if (state == State.OPEN && !protocol.producing()) {
            if (readPaused && !hasPendingOutput()) {
                readPaused = false;
                readInterest(!peerEnded);
            }
            if (heldInput() != null && !readPaused) {
                process(input.buffer(), 0, input.length());
            }
            if (peerEnded && state == State.OPEN && !protocol.producing()) {
                state = State.CLOSING; // everything the peer sent before its FIN is answered
                releaseInput();
            }
        }
        flush();
        updateTimer();
    }

    /** Stops reading until pending output drains or {@link #resumeInput} (counted in {@code readPauses}). */
    public void pauseReading() {
        readPaused = true;
        ctx.metrics.readPauses++;
        io.readInterest(false);
    }

    public boolean readPaused() {
        return readPaused;
    }

    /** Whether the peer has ended its input (FIN) while the connection stayed open. */
    public boolean peerEnded() {
        return peerEnded;
    }

    // ---------------------------------------------------------------- output (ConnectionIo's hooks)

    /** Writes the batch; then, if closing and nothing is pending or still produced, starts draining. */
    public void flush() {
        flushBatch();
        if (state == State.CLOSING && !hasPendingOutput() && !protocol.producing()) {
            startDraining();
        }
    }

    @Override
    boolean acceptsOutput() {
        return state == State.OPEN || state == State.CLOSING;
    }

    @Override
    void outputFailed() {
        close();
    }

    @Override
    void outputBacklogged() {
        if (!readPaused) {
            pauseReading();
        }
    }

    @Override
    void outputDrained() {
        if (protocol.producing() && (state == State.OPEN || state == State.CLOSING)) {
            // The protocol stopped producing (a file, a stream in DATA) for this backlog and waits for
            // onOutputReady. Drained inside onWritable, that call follows; drained mid-batch (flushBatch
            // writing the backlog with the batch) nothing would bring it, and a peer that sends nothing
            // more would wait forever. So writability stays asked for: its event (at once, the socket
            // has room) brings onOutputReady, and onWritable turns the interest off again.
            io.writeInterest(true);
        }
        if (state == State.CLOSING && !protocol.producing()) {
            startDraining();
        } else if (readPaused && state == State.OPEN) {
            // Resumed here, wherever the output drained: also mid-batch, when no writability follows.
            readPaused = false;
            resumedByDrain = true;
            readInterest(true);
        }
    }

    // ---------------------------------------------------------------- closing

    /** The protocol's last output is queued: write it (and what it still produces), then drain and close. */
    public void closeAfterOutput() {
        if (state == State.OPEN) {
            state = State.CLOSING;
        }
    }

    /**
     * The peer has gone (FIN) and nothing more will be answered: close now if nothing is pending,
     * else once the pending output is written.
     */
    public void closeOnceWritten() {
        if (!hasPendingOutput()) {
            close();
            return;
        }
        state = State.CLOSING;
        releaseInput();
        io.readInterest(false);
    }

    public State state() {
        return state;
    }

    public boolean isOpen() {
        return state == State.OPEN;
    }

    public boolean isClosed() {
        return state == State.CLOSED;
    }

    private void startDraining() {
        releaseInput();
        state = State.DRAINING;
        io.shutdownOutput();
        readInterest(true);
        updateTimer();
    }

    private void discardInput() {
        try {
            if (hold().discard(this, ctx.readBuffer)) {
                return;
            }
        } catch (IOException e) {
            // closed below
        }
        close();
    }

    // ---------------------------------------------------------------- switching and context

    /**
     * Hands this connection to {@code next} from now on (called by the current protocol inside
     * {@link Protocol#onInput}, which then returns where its own bytes end: the rest goes to
     * {@code next} at once). The old protocol is forgotten; it must hold nothing.
     */
    public void switchTo(Protocol next) {
        reusable = false; // the old protocol may be reached from what the new one was given
        protocol = next;
        next.onOpen(this);
    }

    public Protocol protocol() {
        return protocol;
    }

    public SocketEndpoint endpoint() {
        return io;
    }

    public LoopContext context() {
        return ctx;
    }

    // ---------------------------------------------------------------- timer (its part, ConnectionTimer)

    /** When the current timer phase's clock started (loop clock ms): a protocol's deadline within it. */
    public long timerSinceMillis() {
        return timer.since();
    }

    /** The protocol finished a unit of work: its current phase starts again (e.g. the next head's clock). */
    public void restartTimerPhase() {
        timer.restartPhase();
    }

    /**
     * Puts the timer in the phase the connection's state calls for: a new phase arms the wheel;
     * progress in the same phase only moves the phase's start.
     */
    public void updateTimer() {
        timer.update();
    }

    @Override
    void progressed() {
        timer.progressed();
    }

    /** The timer node itself (the package's tests fire it). */
    ConnectionTimer timer() {
        return timer;
    }

    /** The phase the connection's state calls for now (see {@link ConnectionTimer}); not asked once closed. */
    int phaseNow() {
        if (state == State.DRAINING) {
            return ConnectionTimer.PHASE_DRAIN;
        }
        return writing() ? ConnectionTimer.PHASE_WRITE : protocol.timerPhase();
    }

    /** The protocol's timeout for its phase {@code phase} (&gt; 0). */
    long protocolTimeout(int phase) {
        return protocol.timeoutMillis(phase);
    }

    /** Whether progress restarts the protocol's phase {@code phase}. */
    boolean progressRestarts(int phase) {
        return protocol.progressRestarts(phase);
    }

    /** The protocol's phase {@code phase} expired. */
    void protocolTimedOut(int phase) {
        protocol.onTimeout(this, phase);
    }
}
