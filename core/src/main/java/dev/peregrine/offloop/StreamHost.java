package dev.peregrine.offloop;

import dev.peregrine.http1.RequestView;
import dev.peregrine.http1.ResponseView;

/**
 * An {@link OffLoopHost} for one stream of a multiplexed connection (an HTTP/2 stream,
 * {@code server.Http2StreamWork}): the {@link Exchange}'s final answer, its interim responses and its
 * refusal go to that stream in the connection's own framing, never as HTTP/1.1 bytes, and the
 * connection's other streams are served meanwhile. Such a host has no body in pieces either way
 * ({@link #bodyOut()} and {@link #bodyIn()} are null) and never counts responses against the
 * connection ({@link #lastAllowed} is false): the exchange does not call {@link #exchangeDone},
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

    /**
     * The handler asked for what the stream cannot carry ({@link Http11Required}): the stream is refused
     * so that the client may ask again over HTTP/1.1.
     */
    void refuse();
}
