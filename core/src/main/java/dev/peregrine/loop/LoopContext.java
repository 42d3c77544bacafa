package dev.peregrine.loop;

import dev.peregrine.buffer.BufferPool;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Everything one loop owns and reuses for every connection it serves, whatever protocol they speak:
 * the read buffer every socket of the loop reads into, the write buffer every batch of output is
 * encoded into, the buffer pool, the timer wheel, the counters and the loop clock. Nothing here is
 * shared between loops. The state a protocol shares between the connections of one loop (for
 * HTTP/1.1: parser, views, encoder, router) is the loop's {@link ProtocolFactory}, made by
 * {@link LoopSetup#protocols()} for this context.
 *
 * <p><b>The loop clock.</b> {@link #nowMillis} is read once per turn of the loop, not per read: the
 * transport marks each turn when its wait returns ({@link #newTurn}: NIO's {@code select}, epoll's
 * {@code epoll_wait} through {@code FineWaitHandler}; io_uring marks none, since one run of its handler
 * may enter the kernel several times: there every event reads the clock), and the first
 * event of the turn the connection layer handles reads the clock ({@link #turnClock}, then {@link #tick}:
 * {@link System#currentTimeMillis()}, and {@link ProtocolFactory#onClock} in a new millisecond). Every
 * later event of the turn, on any connection, finds it read: a check of one field. The wheel's pass
 * ({@link #runTimers}) reads it too, before the wait.
 * <pre>
 *   turn:  runTimers (clock, wheel) -&gt; wait -&gt; newTurn -&gt; event 1: turnClock reads the clock, ticks
 *                                                      -&gt; event 2..n, tasks: turnClock, already read
 * </pre>
 * <b>What a stale clock means.</b> Within a turn {@code nowMillis} is the time the turn's first event
 * began; a turn that runs long (many ready connections, a slow inline handler) leaves it behind by what
 * the turn has taken so far. What reads it, and why that lag is harmless:
 * <ul>
 *   <li>timers on the wheel (idle, header, body, write, drain timeouts; h2, WebSocket and teleport
 *       timers): a phase started late in a long turn is dated from the turn's start, so it may expire
 *       up to that turn's length early (the wheel already rounds every deadline to its 10 ms tick);
 *       expiry itself compares against the clock {@link #runTimers} just read;</li>
 *   <li>the {@code Date} header (to the second) and the slow-handler flag ({@code ServerLoop}, asked of
 *       JFR in a new millisecond): behind by at most the turn's length;</li>
 *   <li>what needs the time of one request reads a clock of its own, as it did before: request
 *       durations for the histograms, the slow-handler event and the access log
 *       ({@link System#nanoTime()} at dispatch and at the end), the watchdog (its own thread), an
 *       off-loop exchange's timeout and TLS handshakes ({@link System#currentTimeMillis()} when armed),
 *       and a completion handed back from another thread ({@code offloop.Exchange} calls {@link #tick}).</li>
 * </ul>
 * A context that no transport turns ({@link #newTurn} never called: a test's or benchmark's loop
 * driven by hand) reads the clock on every {@link #turnClock}, as before turns were marked.
 *
 * <p>Thread: the loop thread (built on the starting thread before the loop runs).
 */
public final class LoopContext {
    final LoopConfig config;
    /** {@link LoopConfig#maxPendingOutput}, where every flush compares against it. */
    final int maxPendingOutput;
    /** The listener this loop serves: port, endpoint layer, protocol of accepted connections. */
    final LoopSetup setup;
    final BufferPool pool;
    /** Shared by all connections of the loop: holds one read's bytes until the protocol took them. */
    final ByteBuffer readBuffer;
    /** Shared by all connections of the loop: holds one batch of output until it is written. */
    final ByteBuffer writeBuffer;
    final LoopMetrics metrics = new LoopMetrics();
    /** Deadlines of this loop's connections (and anything else on the loop), 10 ms resolution. */
    final TimerWheel timers = new TimerWheel(10, 1024, System.currentTimeMillis());
    /** Deadlines finer than the wheel's tick (a teleport batch's delay): the loop wakes for them. */
    final FineTimers fineTimers = new FineTimers();
    /** Protocols for the connections the listener accepts (null for a loop with no listener). */
    private final ProtocolFactory protocols;
    /** Closed plain connections kept, with their protocol, for the next accepted sockets. */
    final ConnectionRecycler recycler = new ConnectionRecycler(this);
    private EventLoop eventLoop;
    /** Connections made from no socket ({@code transport.MemoryPipe}): the loop's stop reaches them here. */
    private final java.util.Set<Connection> adopted = new java.util.HashSet<>();
    private boolean adoptionOver;
    private volatile Thread loopThread;
    private long lastMillis;
    /** Whether a transport marks this loop's turns ({@link #newTurn} was called): else every {@link #turnClock} reads. */
    private boolean turns;
    /** The clock was read in this turn: {@link #turnClock} reads it no more until {@link #newTurn}. */
    private boolean clockRead;

    /** The clock as last read on this loop (by {@link #tick} or {@link #runTimers}), ms since the epoch. */
    long nowMillis = System.currentTimeMillis();

    public LoopContext(LoopSetup setup) {
        this.setup = setup;
        this.config = setup.config();
        this.maxPendingOutput = config.maxPendingOutput();
        this.pool = new BufferPool(config.largestPooledBuffer(), 64);
        this.readBuffer = ByteBuffer.allocateDirect(config.readBufferSize()).order(ByteOrder.LITTLE_ENDIAN);
        this.writeBuffer = ByteBuffer.allocateDirect(config.writeBufferSize()).order(ByteOrder.LITTLE_ENDIAN);
        this.protocols = setup.protocols() == null ? null : setup.protocols().apply(this);
    }

    /**
     * A new turn of the loop: the transport's wait returned (or is about to begin), and the first event
     * of the turn reads the clock again ({@link #turnClock}). Thread: the loop, once per turn.
     */
    public void newTurn() {
        turns = true;
        clockRead = false;
    }

    /**
     * Before the connection layer handles an event: reads the clock ({@link #tick}) if this turn has
     * not read it yet, else nothing (see the class javadoc for what a clock as old as the turn means).
     */
    public void turnClock() {
        if (!clockRead) {
            tick();
        }
    }

    /**
     * Reads the clock now, and tells the protocols in a new millisecond ({@link ProtocolFactory#onClock}).
     * For the turn's first event ({@link #turnClock}), and for work that must not be dated from the turn's
     * start (a timer that fired, a completion handed back from another thread).
     */
    public void tick() {
        long now = System.currentTimeMillis();
        nowMillis = now;
        clockRead = turns;
        if (now != lastMillis && protocols != null) {
            lastMillis = now;
            protocols.onClock(now); // e.g. the cached Date header, rebuilt at most once a second
        }
    }

    /** The loop clock, ms since the epoch, as last read by {@link #tick} or {@link #runTimers}: at most a turn old. */
    public long nowMillis() {
        return nowMillis;
    }

    /**
     * Fires due timers, the wheel's and the fine ones; returns how long the loop may sleep (at most
     * {@code maxSleepMillis}): until the wheel's next tick, or the nearest fine deadline (rounded up to
     * the millisecond) when that is sooner. With no fine deadline armed this reads no extra clock.
     */
    public long runTimers(long maxSleepMillis) {
        long now = System.currentTimeMillis();
        nowMillis = now;
        timers.advance(now);
        long next = timers.millisToNextTick(now);
        long sleep = next < 0 ? maxSleepMillis : Math.min(next, maxSleepMillis);
        if (!fineTimers.isEmpty()) {
            long nanos = System.nanoTime();
            if (fineTimers.runDue(nanos) > 0) {
                nanos = System.nanoTime();
            }
            long fine = fineTimers.millisToNext(nanos);
            if (fine >= 0) {
                sleep = Math.min(sleep, fine);
            }
        }
        return sleep;
    }

    /**
     * Fires the fine deadlines that are due (for a loop whose wait is not {@link #runTimers}': the native
     * transports call this after each wait). Nothing but a length check when none is armed.
     */
    public void runFineTimers() {
        if (fineTimers.isEmpty()) {
            return;
        }
        long nanos = System.nanoTime();
        if (fineTimers.nextDeadlineNanos() - nanos > 0) {
            return;
        }
        nowMillis = System.currentTimeMillis();
        fineTimers.runDue(nanos);
    }

    /**
     * Arms {@code t} to fire {@code delayMillis} from now, to the loop's own latency rather than the
     * wheel's 10 ms tick (the loop's wait is cut short for it). For short delays whose length is a
     * promise (a batch delay); deadlines that only bound a wait (timeouts) belong on {@link #timers()}.
     */
    public void scheduleFine(FineTimeout t, long delayMillis) {
        fineTimers.schedule(t, delayMillis * 1_000_000L, System.nanoTime());
    }

    /** The loop's fine deadlines ({@link #scheduleFine}). */
    public FineTimers fineTimers() {
        return fineTimers;
    }

    /**
     * A connection for a socket the listener accepted: wrapped in the listener's
     * {@link EndpointLayer} (TLS, PROXY) when it has one, speaking the listener's protocol.
     */
    public Connection newConnection(SocketEndpoint socket) {
        if (loopThread == null) {
            loopThread = Thread.currentThread(); // for the watchdog's stack trace; once, not per request
        }
        if (setup.layer() != null) {
            return newConnection(socket, setup.layer(), protocols.newProtocol());
        }
        Connection spare = recycler.take();
        if (spare != null) {
            spare.reopen(socket);
            return spare;
        }
        return Connection.reusable(this, socket, protocols.newProtocol());
    }

    /** A connection over {@code socket} with {@code layer} (or none) speaking {@code protocol} (outbound connections). */
    public Connection newConnection(SocketEndpoint socket, EndpointLayer layer, Protocol protocol) {
        if (layer == null) {
            return new Connection(this, socket, protocol);
        }
        LayeredEndpoint endpoint = layer.wrap(socket, this);
        Connection connection = new Connection(this, endpoint, protocol);
        endpoint.attach(connection);
        return connection;
    }

    /**
     * Makes the loop answer for {@code c}, a connection on no socket of the loop's selector or epoll set
     * (an in-memory one): its stop shuts it down and closes it like the others. Returns false, adopting
     * nothing, once the loop is stopping. Thread: the loop.
     */
    public boolean adopt(Connection c) {
        if (adoptionOver) {
            return false;
        }
        adopted.add(c);
        return true;
    }

    /** {@code c} closed: the loop forgets it. Thread: the loop. */
    public void forget(Connection c) {
        adopted.remove(c);
    }

    /** The loop begins its graceful stop: adopted connections finish what they do (see {@link Connection#shutdown}). */
    public void shutdownAdopted() {
        adoptionOver = true;
        for (Connection c : adopted.toArray(new Connection[0])) {
            c.shutdown();
        }
    }

    /** The loop's grace is over: adopted connections still open close now. */
    public void closeAdopted() {
        adoptionOver = true;
        for (Connection c : adopted.toArray(new Connection[0])) {
            c.close();
        }
    }

    /** The loop's factory of accepted connections' protocols (and their shared per-loop state), or null. */
    public ProtocolFactory protocols() {
        return protocols;
    }

    /** The loop's thread once it accepted a connection, else null (for diagnostics). */
    public Thread loopThread() {
        return loopThread;
    }

    public TimerWheel timers() {
        return timers;
    }

    public void bind(EventLoop loop) {
        if (eventLoop != null) {
            throw new IllegalStateException("context already bound to a loop");
        }
        eventLoop = loop;
    }

    public EventLoop eventLoop() {
        return eventLoop;
    }

    public BufferPool pool() {
        return pool;
    }

    /** The loop's shared read buffer: valid only inside the read event that filled it. */
    public ByteBuffer readBuffer() {
        return readBuffer;
    }

    public LoopMetrics metrics() {
        return metrics;
    }

    public LoopConfig config() {
        return config;
    }

    /** Drops what the loop holds when it has stopped: pooled buffers, and the protocols' per-loop state. */
    public void free() {
        pool.clear();
        if (protocols != null) {
            protocols.free();
        }
    }
}
