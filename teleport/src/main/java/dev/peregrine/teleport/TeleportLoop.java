package dev.peregrine.teleport;

import dev.peregrine.ServerConfig;
import dev.peregrine.http1.HeadParser;
import dev.peregrine.http1.RequestFramer;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Protocol;
import dev.peregrine.loop.ProtocolFactory;
import dev.peregrine.server.ServerLoop;
import dev.peregrine.server.ServerSetup;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The teleport server's state on one loop, shared by its connections: the HTTP/1.1 server's
 * {@link ServerLoop} (router, request and response views, encoder, compressor: the same routes and
 * handlers as the HTTP port), a head parser and framer of its own (each REQUEST payload is framed as
 * a whole message), the router's parameter arrays, the {@link FrameSink} responses are gathered
 * in, and the batching settings and counters of {@link ServerBatch}. Makes each accepted connection's
 * {@link TeleportServerProtocol}.
 *
 * <p>Thread: the loop thread (built on the starting thread before the loop runs).
 */
final class TeleportLoop implements ProtocolFactory, ServerLoop.Wrapper {
    final ServerLoop http;
    final ServerConfig config;
    final RequestFramer framer;
    final FrameSink sink = new FrameSink();
    /** An inline handler's interim responses, which its final response's payload begins with. */
    final FrameSink interim = new FrameSink();
    final int[] paramStarts = new int[16];
    final int[] paramEnds = new int[16];
    /** The largest REQUEST payload this server accepts (its hello's maxFrame). */
    final int maxFrame;
    final int maxInFlight;
    /** The server's batching ({@link ServerBatch}): {@code teleportMaxBatch*} settings. */
    final long maxBatchDelayMillis;
    final int maxBatchFrames;
    final int maxBatchBytes;
    /**
     * Batches cut and frames written by this loop's connections (written by the loop with release stores:
     * no fence per frame; read by tests).
     */
    volatile long batches;
    volatile long framesOut;
    private static final VarHandle BATCHES;
    private static final VarHandle FRAMES_OUT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            BATCHES = l.findVarHandle(TeleportLoop.class, "batches", long.class);
            FRAMES_OUT = l.findVarHandle(TeleportLoop.class, "framesOut", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    TeleportLoop(LoopContext ctx, ServerSetup setup, int maxInFlight) {
        this.http = new ServerLoop(ctx, setup);
        this.config = setup.config();
        HeadParser parser = new HeadParser(config.maxRequestLineLength(), config.maxHeadSize(), config.maxHeaderCount());
        // Each payload is one whole message: nothing is streamed (no LARGE_BODY), the body is in the frame.
        this.framer = new RequestFramer(parser, config.maxBodySize(), config.maxHeadSize(), Long.MAX_VALUE);
        this.maxFrame = maxFrame(config);
        this.maxInFlight = maxInFlight;
        this.maxBatchDelayMillis = config.teleportMaxBatchDelayMillis();
        this.maxBatchFrames = config.teleportMaxBatchFrames();
        this.maxBatchBytes = config.teleportMaxBatchBytes();
    }

    /** A frame was written. Thread: the loop. */
    void countFrame() {
        FRAMES_OUT.setRelease(this, framesOut + 1);
    }

    /** A batch was cut. Thread: the loop. */
    void countBatch() {
        BATCHES.setRelease(this, batches + 1);
    }

    /** A whole request within the server's head and body limits, within the handshake's bounds. */
    static int maxFrame(ServerConfig config) {
        long m = (long) config.maxHeadSize() * 2 + config.maxBodySize();
        return (int) Math.max(Handshake.MIN_FRAME, Math.min(Handshake.MAX_FRAME, m));
    }

    /** The server state its requests are served with: the server's metrics read its histograms through it. */
    @Override
    public ServerLoop serverLoop() {
        return http;
    }

    @Override
    public Protocol newProtocol() {
        return new TeleportServerProtocol(this);
    }

    @Override
    public void onClock(long nowMillis) {
        http.onClock(nowMillis);
    }

    @Override
    public void free() {
        http.free();
    }
}
