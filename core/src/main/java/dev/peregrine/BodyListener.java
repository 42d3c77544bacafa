package dev.peregrine;

import java.nio.ByteBuffer;

/**
 * Receives a request body piece by piece on the event loop ({@link Request#onBody(BodyListener)}).
 * The server reads no more from the socket until a call returns, so a listener that takes its time
 * slows the client down instead of filling memory.
 *
 * <p>Thread: the connection's event loop; must not block. The buffers passed in are read-only views
 * valid only during the call.
 */
public interface BodyListener {
    /** The next bytes of the body, at {@code [position, limit)} of {@code data}. */
    void onData(ByteBuffer data) throws Exception;

    /**
     * The body ended with trailer fields (HTTP/1.1 chunked trailers, HTTP/2's trailing HEADERS): called
     * once, just before {@link #onEnd()}, only when there were some. Does nothing unless overridden.
     */
    default void onTrailers(Trailers trailers) throws Exception {
    }

    /** The body is complete. */
    void onEnd() throws Exception;
}
