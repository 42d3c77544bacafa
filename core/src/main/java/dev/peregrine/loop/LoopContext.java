package dev.peregrine.loop;

import dev.peregrine.Handler;
import dev.peregrine.ServerConfig;
import dev.peregrine.buffer.BufferPool;
import dev.peregrine.http1.HeadParser;
import dev.peregrine.http1.RequestView;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.http1.ResponseView;
import dev.peregrine.route.Router;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Everything one loop owns and reuses for every request it serves: the read buffer every socket of
 * the loop reads into, the write buffer every response is encoded into, the buffer pool, and one each
 * of parser, request view, response view and encoder. Nothing here is shared between loops.
 *
 * <p>Thread: the loop thread (built on the starting thread before the loop runs).
 */
public final class LoopContext {
    final ServerConfig config;
    /** The listener this loop serves: router, layer, protocol switches, blocking executor. */
    final LoopSetup setup;
    final Router router;
    final BufferPool pool;
    /** Shared by all connections of the loop: holds one read's bytes until they are parsed. */
    final ByteBuffer readBuffer;
    /** Shared by all connections of the loop: holds one batch of responses until it is written. */
    final ByteBuffer writeBuffer;
    final HeadParser parser;
    final RequestView request;
    /** Owner of {@link #response}: reached by an inline handler's {@code async()} (see {@link Exchange}). */
    final OffLoop offLoop = new OffLoop(this);
    final ResponseView response = new ResponseView(offLoop);
    final ResponseEncoder encoder = new ResponseEncoder();
    /** Compresses response bodies (one per loop, reused), or null when the server does not compress. */
    final dev.peregrine.http1.ResponseCompressor compressor;
    /** Request ids and the access log, or null when both are off ({@code dev.peregrine.web}). */
    final RequestTracer tracer;
    final int[] paramStarts = new int[16];
    final int[] paramEnds = new int[16];
    final LoopMetrics metrics = new LoopMetrics();
    /** Request-duration histograms of this loop, or null when {@code requestDurations} is off. */
    final RequestDurations durations;
    /** Deadlines of this loop's connections (and anything else on the loop), 10 ms resolution. */
    final TimerWheel timers = new TimerWheel(10, 1024, System.currentTimeMillis());
    private final System.Logger log = System.getLogger("dev.peregrine");
    private long lastMillis;
    private EventLoop eventLoop;
    /** The inline handler running now, or null (see {@link LoopWatchdog}); opaque access only. */
    private Handler runningHandler;
    /** Inline handler calls begun on this loop (see {@link LoopWatchdog}); opaque access only. */
    private long handlerCalls;
    private volatile Thread loopThread;
    private static final java.lang.invoke.VarHandle RUNNING;
    private static final java.lang.invoke.VarHandle CALLS;

    static {
        try {
            java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.lookup();
            RUNNING = l.findVarHandle(LoopContext.class, "runningHandler", Handler.class);
            CALLS = l.findVarHandle(LoopContext.class, "handlerCalls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The clock as last read on this loop (by {@link #tick} or {@link #runTimers}), ms since the epoch. */
    long nowMillis = System.currentTimeMillis();

    /** A loop's resources for a listener with no layer and no protocol switches (tests, tools). */
    public LoopContext(ServerConfig config, Router router) {
        this(LoopSetup.of(config, router));
    }

    public LoopContext(LoopSetup setup) {
        this.setup = setup;
        this.config = setup.config();
        this.router = setup.router();
        ServerConfig config = this.config;
        int poolMax = config.maxHeadSize() + (int) Math.min(config.maxBodySize(), Integer.MAX_VALUE / 2) + config.readBufferSize();
        this.pool = new BufferPool(poolMax, 64);
        this.readBuffer = ByteBuffer.allocateDirect(config.readBufferSize()).order(ByteOrder.LITTLE_ENDIAN);
        this.writeBuffer = ByteBuffer.allocateDirect(config.writeBufferSize()).order(ByteOrder.LITTLE_ENDIAN);
        this.parser = new HeadParser(config.maxRequestLineLength(), config.maxHeadSize(), config.maxHeaderCount());
        this.request = new RequestView(config.maxHeaderCount());
        this.durations = config.requestDurations() ? new RequestDurations() : null;
        this.compressor = setup.compression() == null ? null : new dev.peregrine.http1.ResponseCompressor(setup.compression());
        this.tracer = RequestTracer.create(setup.requestIds(), setup.accessLog());
    }

    /** {@code res} answers {@code req} and is about to be encoded: the access log's hook (one null test when off). */
    void responding(RequestView req, ResponseView res, boolean head) {
        if (tracer != null) {
            tracer.end(req, res, head);
        }
    }

    /** Reads the clock and refreshes what depends on it (the Date header). Once per batch. */
    void tick() {
        long now = System.currentTimeMillis();
        nowMillis = now;
        if (now != lastMillis) {
            lastMillis = now;
            encoder.tick(now);
        }
    }

    /**
     * A handler threw {@code t}: the status to answer with. A form the client got wrong
     * ({@link dev.peregrine.form.BadFormException}: 400, {@link dev.peregrine.form.FormLimitException}:
     * 413) is the client's fault and logged at DEBUG; anything else is the handler's: 500, one WARNING
     * with the stack trace, counted in {@code handlerErrors}.
     */
    int handlerFailed(Object request, Throwable t) {
        int status = t instanceof dev.peregrine.form.BadFormException ? ((dev.peregrine.form.BadFormException) t).status()
                : t instanceof dev.peregrine.form.FormLimitException ? ((dev.peregrine.form.FormLimitException) t).status()
                : 500;
        if (status != 500) {
            log.log(System.Logger.Level.DEBUG, () -> "form refused for " + request + ": " + t.getMessage() + "; answered " + status);
            return status;
        }
        metrics.handlerErrors++;
        log.log(System.Logger.Level.WARNING, "handler failed for " + request + "; answered 500", t);
        return 500;
    }

    /**
     * Fires due timers and returns how long the loop may sleep (ms) before the next could fire, or
     * {@code maxSleepMillis}. Called by the transport once per loop cycle.
     */
    public long runTimers(long maxSleepMillis) {
        long now = System.currentTimeMillis();
        nowMillis = now;
        timers.advance(now);
        long next = timers.millisToNextTick(now);
        return next < 0 ? maxSleepMillis : Math.min(next, maxSleepMillis);
    }

    /**
     * Builds the connection for a socket this loop accepted, through the listener's
     * {@link EndpointLayer} (TLS) when {@link LoopSetup#layer()} names one. Every transport
     * calls this instead of constructing a {@link Connection} itself. Every accepted connection
     * starts speaking HTTP/1.1 ({@link Http1ServerProtocol}), which hands it to another protocol when
     * {@link LoopSetup#switches()} says so. Thread: this loop.
     */
    public Connection newConnection(SocketEndpoint socket) {
        if (loopThread == null) {
            loopThread = Thread.currentThread(); // for the watchdog's stack trace; once, not per request
        }
        EndpointLayer layer = setup.layer();
        if (layer == null) {
            return new Connection(this, socket, new Http1ServerProtocol(this));
        }
        LayeredEndpoint endpoint = layer.wrap(socket, this);
        Connection connection = new Connection(this, endpoint, new Http1ServerProtocol(this));
        endpoint.attach(connection);
        return connection;
    }

    /**
     * Builds the connection for a socket this loop connected ({@link EventLoop#connect}): through
     * {@code layer} when given, speaking {@code protocol}. Thread: this loop.
     */
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
     * Marks the start of an inline handler call for the {@link LoopWatchdog}. Opaque stores: the
     * watchdog sees them eventually and in no particular order with other fields, which is all it needs.
     * Thread: this loop.
     */
    void enterHandler(Handler h) {
        CALLS.setOpaque(this, handlerCalls + 1);
        RUNNING.setOpaque(this, h);
    }

    /** Marks the end of the inline handler call. Thread: this loop. */
    void exitHandler() {
        RUNNING.setOpaque(this, (Handler) null);
    }

    /** The inline handler running now, or null. Thread: any (a monitoring read). */
    Handler runningHandler() {
        return (Handler) RUNNING.getOpaque(this);
    }

    /** Inline handler calls begun so far. Thread: any (a monitoring read). */
    long handlerCalls() {
        return (long) CALLS.getOpaque(this);
    }

    /** The loop's thread, once it has a connection (for the watchdog's stack trace); else null. */
    Thread loopThread() {
        return loopThread;
    }

    /** The loop's timer wheel. */
    public TimerWheel timers() {
        return timers;
    }

    /** Called once by the transport before the loop runs: the loop this context belongs to. */
    public void bind(EventLoop loop) {
        if (eventLoop != null) {
            throw new IllegalStateException("context already bound to a loop");
        }
        eventLoop = loop;
    }

    /** The loop owning this context: the way back onto the loop thread from any other thread. */
    public EventLoop eventLoop() {
        return eventLoop;
    }

    /** The loop's buffer pool. */
    public BufferPool pool() {
        return pool;
    }

    /** The loop's counters. */
    public LoopMetrics metrics() {
        return metrics;
    }

    /** This loop's request-duration histograms, or null when they are off. */
    public RequestDurations durations() {
        return durations;
    }

    /** The listener's router (route numbers name {@link RequestDurations} series). */
    public Router router() {
        return router;
    }

    /** The server's settings. */
    public ServerConfig config() {
        return config;
    }

    /** Drops pooled memory once the loop has stopped. */
    public void free() {
        pool.clear();
        if (compressor != null) {
            compressor.close();
        }
    }
}
