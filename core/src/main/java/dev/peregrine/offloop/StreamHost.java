package dev.peregrine.offloop;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;

/**
 * An {@link OffLoopHost} for one stream of a multiplexed connection (an HTTP/2 stream,
 * {@code server.Http2StreamWork}): the {@link Exchange}'s final answer, and its interim responses go to that stream in the connection's own framing, never as HTTP/1.1 bytes, and the
 * connection's other streams are served meanwhile. A response body in pieces goes through a
 * {@link PipedOutput} the stream pulls ({@link #pump}), never through {@link #bodyOut()}, which is
 * null; a request body in pieces is {@link IncomingBody#offer}ed the stream's DATA. Such a host never counts responses against the connection ({@link #lastAllowed} is false): the exchange does not call {@link #exchangeDone},
 * {@link #startBody} or {@link #pumpBody} on it.
 *
 * <p>Thread: the loop thread.
 */
public interface StreamHost extends OffLoopHost {
    /**
     * The exchange's final response ({@code res}: the handler's, the 500 of its failure, or the
     * timeout's 503) for {@code req}: encoded on the stream, or dropped when the stream is gone
     * (reset by the client, connection closed).
     */
    void answer(RequestView req, ResponseView res, boolean head);

    /** An interim response (1xx) before the final one; dropped when the stream is gone. */
    void interim(int status, String[] headers);

    /** The handler's {@code res.outputStream()} ({@link PipedOutput}) has bytes or its end for the stream. */
    void pump();

    /**
     * The handler consumed {@code bytes} of the stream's request body ({@link IncomingBody}): the stream
     * may receive as many more (its flow-control window reopens); {@code now}: from a loop task, so the
     * window's update is written at once (else it leaves with the read being handled). Dropped when the
     * stream is gone.
     */
    void bodyConsumed(int bytes, boolean now);
}
