package dev.peregrine.server;

import dev.peregrine.Handler;
import dev.peregrine.ServerConfig;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseCompressor;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.form.BadFormException;
import dev.peregrine.form.FormLimitException;
import dev.peregrine.http1.HeadParser;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopMetrics;
import dev.peregrine.loop.Protocol;
import dev.peregrine.loop.ProtocolFactory;
import dev.peregrine.offloop.HttpLoop;
import dev.peregrine.offloop.OffLoop;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.route.Router;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;

/**
 * The HTTP/1.1 server's state on one loop, shared by every connection of the loop: one parser, one
 * request view, one response view, one encoder, the router and its parameter arrays, the compressor,
 * the tracer, the histograms, and what the watchdog reads. It makes each accepted connection's
 * {@link Http1ServerProtocol}. Nothing here is shared between loops.
 *
 * <p>Thread: the loop thread (built on the starting thread before the loop runs), but for the two
 * opaque fields the {@link LoopWatchdog} reads.
 */
public final class ServerLoop implements ProtocolFactory, HttpLoop {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private static final VarHandle RUNNING;
    private static final VarHandle CALLS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            RUNNING = l.findVarHandle(ServerLoop.class, "runningHandler", Handler.class);
            CALLS = l.findVarHandle(ServerLoop.class, "handlerCalls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final LoopContext loop;
    final ServerSetup setup;
    final ServerConfig config;
    final LoopMetrics metrics;
    /** The loop's shared read buffer (a streamed request body reads into it). */
    final ByteBuffer readBuffer;
    final Router router;
    final HeadParser parser;
    final RequestView request;
    /** Owner of {@link #response}: reached by an inline handler's {@code async()}. */
    final OffLoop offLoop = new OffLoop(this);
    final ResponseView response = new ResponseView(offLoop);
    final ResponseEncoder encoder = new ResponseEncoder();
    /** Compresses response bodies (one per loop, reused), or null when the server does not compress. */
    final ResponseCompressor compressor;
    /**
     * The compressor's {@code minSize}, read once: {@link Http1ServerProtocol} asks the response
     * ({@code ResponseView.compressible}) before it calls the compressor, so a small body skips the call.
     */
    final int compressMinSize;
    /** Request ids and the access log, or null when both are off ({@code dev.peregrine.web}). */
    final RequestTracer tracer;
    final int[] paramStarts = new int[16];
    final int[] paramEnds = new int[16];
    /** Request-duration histograms of this loop, or null when {@code requestDurations} is off. */
    final RequestDurations durations;
    /**
     * Whether a JFR recording wants {@code dev.peregrine.SlowHandler} events, as last asked on the loop's
     * clock tick ({@link #onClock}, at most once a millisecond): every request reads this field instead
     * of asking JFR. A recording that starts is seen at the loop's next tick, so requests dispatched
     * before it (within that millisecond) are not timed for it; one that stops costs at most a tick of
     * timing with no event (the event itself asks JFR, {@link RequestDurations#requestDone}).
     */
    boolean slowHandlers = dev.peregrine.jfr.PeregrineEvents.slowHandlers();
    /** HTTP/2 streams' dispatch on this loop, or null before the first HTTP/2 connection. */
    private Http2Dispatch http2;
    /** Whose inline handler runs now, or ran last ({@link #inlineSite}); set with the watchdog's fields. */
    private dev.peregrine.offloop.InlineSite inlineSite;
    /** The inline handler running now, or null (see {@link LoopWatchdog}); opaque access only. */
    @SuppressWarnings("unused")
    private Handler runningHandler;
    /** Inline handler calls begun on this loop (see {@link LoopWatchdog}); opaque access only. */
    @SuppressWarnings("unused")
    private long handlerCalls;

    public ServerLoop(LoopContext loop, ServerSetup setup) {
        this.loop = loop;
        this.setup = setup;
        this.config = setup.config();
        this.metrics = loop.metrics();
        this.readBuffer = loop.readBuffer();
        this.router = setup.router();
        this.parser = new HeadParser(config.maxRequestLineLength(), config.maxHeadSize(), config.maxHeaderCount());
        this.request = new RequestView(config.maxHeaderCount());
        this.compressor = setup.compression() == null ? null : new ResponseCompressor(setup.compression());
        this.compressMinSize = compressor == null ? Integer.MAX_VALUE : compressor.minSize();
        this.tracer = RequestTracer.create(setup.requestIds(), setup.accessLog());
        this.durations = config.requestDurations() ? new RequestDurations() : null;
        encoder.tick(loop.nowMillis());
    }

    /**
     * A loop's protocol factory that serves the routes through a {@code ServerLoop} of its own (teleport's
     * {@code TeleportLoop}): {@link #of} finds it through this, so that its loops' counters and
     * request-duration histograms are in the server's metrics.
     */
    public interface Wrapper {
        ServerLoop serverLoop();
    }

    /**
     * The server state of the loop {@code ctx} (made by a {@link ServerSetup}, or wrapped by a
     * {@link Wrapper}), or null for a loop with other protocols.
     */
    public static ServerLoop of(LoopContext ctx) {
        ProtocolFactory f = ctx.protocols();
        return f instanceof ServerLoop ? (ServerLoop) f : f instanceof Wrapper ? ((Wrapper) f).serverLoop() : null;
    }

    // ---------------------------------------------------------------- ProtocolFactory

    @Override
    public Protocol newProtocol() {
        return new Http1ServerProtocol(this);
    }

    @Override
    public void onClock(long nowMillis) {
        encoder.tick(nowMillis);
        slowHandlers = dev.peregrine.jfr.PeregrineEvents.slowHandlers(); // JFR's flag changes at run time: asked once a tick
    }

    @Override
    public void free() {
        if (compressor != null) {
            compressor.close();
        }
    }

    // ---------------------------------------------------------------- HttpLoop

    @Override
    public LoopContext loop() {
        return loop;
    }

    @Override
    public ServerConfig config() {
        return config;
    }

    @Override
    public RequestView request() {
        return request;
    }

    @Override
    public ResponseView response() {
        return response;
    }

    @Override
    public ResponseEncoder encoder() {
        return encoder;
    }

    @Override
    public ResponseCompressor compressor() {
        return compressor;
    }

    @Override
    public OffLoop offLoop() {
        return offLoop;
    }

    @Override
    public dev.peregrine.offloop.InlineSite inlineSite() {
        return inlineSite;
    }

    /**
     * Loop: the connection whose inline handler is about to run, for a protocol outside this package
     * (teleport) that calls its handlers without the watchdog's {@link #enterHandler}.
     */
    public void runningFor(dev.peregrine.offloop.InlineSite site) {
        inlineSite = site;
    }

    @Override
    public OffLoopExecutor blockingExecutor() {
        return setup.blockingExecutor();
    }

    /** Every place that encodes a response calls this just before: request id, access-log line. */
    @Override
    public void responding(RequestView req, ResponseView res, boolean head) {
        if (tracer != null) {
            tracer.end(req, res, head);
        }
    }

    /**
     * A protocol outside this package (teleport) dispatches {@code req}: its request id (echoed by
     * {@code res}) and access-log start, as {@link Http1ServerProtocol} gives each request.
     */
    public void beginTrace(RequestView req, ResponseView res) {
        if (tracer != null) {
            tracer.begin(req, res);
        }
    }

    /**
     * Ops, for a protocol outside this package (teleport) timing its requests as {@code RequestBudget}
     * does: the dispatch time of a request, or 0 when neither the histograms nor a JFR recording of slow
     * handlers want it.
     */
    public long timingStart() {
        return durations != null || slowHandlers ? System.nanoTime() : 0;
    }

    /** Ops: the series of {@code req} (read at dispatch: the view is reused) for {@link #requestDone}. */
    public int timingKey(RequestView req) {
        return RequestDurations.key(req.routeId(), req.methodId(), 0);
    }

    /** Ops: a request timed from {@code startNanos} ({@link #timingStart}, not 0) ended with {@code status}. */
    public void requestDone(int key, int status, long startNanos) {
        RequestDurations.requestDone(this, key, status, System.nanoTime() - startNanos);
    }

    /**
     * A handler threw {@code t} for {@code request}: a refused form ({@code BadFormException} 400,
     * {@code FormLimitException} 413) or streamed body ({@code RequestBodyException} 400/413, also wrapped
     * in an {@code UncheckedIOException}) is the client's fault (DEBUG); anything else is counted, logged
     * at WARNING with its stack, and answered 500.
     */
    @Override
    public int handlerFailed(Object request, Throwable t) {
        Throwable body = t instanceof java.io.UncheckedIOException ? t.getCause() : t; // req.bodyBytes() of a streamed body wraps it
        int status = t instanceof BadFormException ? ((BadFormException) t).status()
                : t instanceof FormLimitException ? ((FormLimitException) t).status()
                : body instanceof dev.peregrine.RequestBodyException ? ((dev.peregrine.RequestBodyException) body).status()
                : 500;
        if (status != 500) {
            LOG.log(System.Logger.Level.DEBUG, () -> "body or form refused for " + request + ": " + t.getMessage() + "; answered " + status);
            return status;
        }
        metrics.handlerErrors++;
        LOG.log(System.Logger.Level.WARNING, "handler failed for " + request + "; answered 500", t);
        return 500;
    }

    // ---------------------------------------------------------------- read by others

    /** This loop's HTTP/2 counters, or null before its first HTTP/2 connection (read by {@code Metrics}). */
    public dev.peregrine.h2.Http2Counters http2Counters() {
        Http2Dispatch d = http2;
        return d == null ? null : d.loop().counters();
    }

    /** This loop's HTTP/2 dispatch, made at its first HTTP/2 connection. */
    public Http2Dispatch http2() {
        if (http2 == null) {
            http2 = new Http2Dispatch(this);
        }
        return http2;
    }

    /** Request-duration histograms of this loop, or null when {@code requestDurations} is off. */
    public RequestDurations durations() {
        return durations;
    }

    public Router router() {
        return router;
    }

    // ---------------------------------------------------------------- watchdog (two opaque stores per inline call)

    /** {@code site}'s inline handler {@code h} is about to run: what {@code async()} reaches, and the watchdog's two stores. */
    void enterHandler(dev.peregrine.offloop.InlineSite site, Handler h) {
        inlineSite = site;
        CALLS.setOpaque(this, (long) CALLS.getOpaque(this) + 1);
        RUNNING.setOpaque(this, h);
    }

    void exitHandler() {
        RUNNING.setOpaque(this, (Handler) null);
    }

    Handler runningHandler() {
        return (Handler) RUNNING.getOpaque(this);
    }

    long handlerCalls() {
        return (long) CALLS.getOpaque(this);
    }
}
