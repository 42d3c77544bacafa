package dev.peregrine.loop;

import java.io.IOException;

/**
 * A response body the connection sends piece by piece after its head, because it is too large or not
 * yet known when the head leaves: a file ({@link FileBody}) or a handler's stream
 * ({@link ChunkedBodyWriter}). While a connection has one, it handles no further request.
 *
 * <p>Thread: the owning loop, except where an implementation says otherwise.
 */
interface BodySource {
    /**
     * Moves as much of the body toward the socket as backpressure allows: into the connection's
     * output ({@link HttpConnection#out()}, emptied with {@link HttpConnection#drain()}) or straight to
     * the socket. Returns {@code true} once the whole body has been handed over.
     *
     * @throws IOException when the body cannot be read; the connection is then closed (the client sees
     *     a truncated message)
     */
    boolean pump(HttpConnection c) throws IOException;

    /** The connection closed or gave up on the body: free what it holds. Idempotent. */
    void abort();
}
