package dev.peregrine.h2;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.loop.Connection;

/**
 * What an HTTP/2 connection needs of the server on its loop: the loop's request and response views
 * and the same dispatch (router, filters, handler) an HTTP/1.1 request gets. Implemented by the
 * server ({@code server.Http2Dispatch}), so this package names nothing of it. One per loop.
 *
 * <p>Thread: the loop thread.
 */
public interface StreamDispatch {
    /** {@link #dispatch}: the response view holds the answer to encode. */
    int ANSWERED = 0;
    /** {@link #dispatch}: the answer needs what only HTTP/1.1 carries (no such body kind is known today): refuse the stream. */
    int HTTP_1_1_REQUIRED = 1;
    /**
     * {@link #dispatch}: the handler runs off the loop (a blocking route, {@code res.async()}); its answer
     * comes later through a {@link PendingStream} on the loop, while the connection's other streams are
     * served.
     */
    int LATER = 2;
    /**
     * {@link #dispatchStreamed}: the route takes its body whole (an inline handler): gather it in memory
     * and {@link #dispatch} at END_STREAM, as for any body.
     */
    int NOT_STREAMED = 3;

    /** The loop's request view, which the connection fills for each stream. */
    RequestView request();

    /** The loop's response view. */
    ResponseView response();

    /**
     * Routes {@code req}, the request of stream {@code streamId} of {@code h2} (on {@code c}), and runs
     * its handler as HTTP/1.1 would: inline, or handed off the loop (then {@link PendingStream#of}
     * names the stream its answer goes to). Returns {@link #ANSWERED} (then {@code res} is ready to
     * encode: compressed, traced, counted), {@link #LATER} or {@link #HTTP_1_1_REQUIRED}.
     */
    int dispatch(Connection c, Http2Connection h2, int streamId, RequestView req, ResponseView res);

    /**
     * The request of stream {@code streamId}, whose {@code content-length} ({@code length}) is above
     * {@link #streamBodyThreshold()} and whose DATA is still to come, is routed at its HEADERS, as
     * HTTP/1.1 routes a large body at its head: a blocking or streaming route gets the body in pieces
     * (then {@link #LATER}, having given the stream its {@link StreamBody} through
     * {@link PendingStream#receive}); a body above the route's limit, or a streaming handler answering
     * at once, is {@link #ANSWERED} ({@code res} holds the answer; the rest of the body is refused);
     * any other route is {@link #NOT_STREAMED}.
     */
    int dispatchStreamed(Connection c, Http2Connection h2, int streamId, RequestView req, ResponseView res, long length);

    /** A {@code content-length} above this streams to blocking and streaming routes (the server's {@code streamBodyThreshold}). */
    long streamBodyThreshold();

    /** The cached {@code Date: ...\r\n} line of the loop. */
    byte[] dateLine();

    /** The loop's shared HTTP/2 state (scratch buffers, the encoder, the counters). */
    Http2Loop loop();

    /** The largest request body kept in memory (the server's {@code maxBodySize}). */
    long maxBodySize();

    /** How long an idle connection (no stream open) stays, in milliseconds. */
    long idleTimeoutMillis();

    /** How long a stream's request body may pause, and the preface may take, in milliseconds. */
    long bodyTimeoutMillis();
}
