package dev.peregrine.offloop;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseCompressor;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.loop.LoopContext;

/**
 * What off-loop work needs from the HTTP/1.1 server's state on one loop (implemented by
 * {@code dev.peregrine.server.ServerLoop}): the generic loop resources, the loop's shared views, its
 * encoder and compressor, and the two things every response path does (tracing, failure mapping).
 *
 * <p>Thread: the loop thread.
 */
public interface HttpLoop {
    /** The loop's resources: pool, timers, clock, counters, task queue. */
    LoopContext loop();

    /** The server's settings (timeouts and limits of off-loop work). */
    dev.peregrine.ServerConfig config();

    /** The view of the request being handled inline (copied by {@code async()}). */
    RequestView request();

    /** The loop's shared response view: free between handler calls (the async timeout's 503 uses it). */
    ResponseView response();

    ResponseEncoder encoder();

    /** The loop's response compressor, or null when the server does not compress. */
    ResponseCompressor compressor();

    /** Called just before a response is encoded: request id, access-log line. */
    void responding(RequestView req, ResponseView res, boolean head);

    /** A handler threw {@code t}: logs it and returns the status to answer (500, or 400/413 for a bad form). */
    int handlerFailed(Object request, Throwable t);

    /**
     * The connection (or HTTP/2 stream) whose inline handler is running, as its protocol said before
     * calling it; the last one between handlers, null before the first. What {@code async()} hands
     * off and where an interim response goes ({@link OffLoop}).
     */
    InlineSite inlineSite();

    /** This loop's off-loop state: the exchange an inline handler started, finished exchanges for reuse. */
    OffLoop offLoop();

    /** Runs blocking handlers. */
    OffLoopExecutor blockingExecutor();
}
