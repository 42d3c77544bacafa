package dev.peregrine.offloop;

import dev.peregrine.http1.RequestView;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.http1.ResponseView;
import dev.peregrine.loop.Connection;

import java.io.IOException;

/**
 * A response body the connection sends piece by piece after its head, because it is too large or not
 * yet known when the head leaves: a file ({@link FileBody}) or a handler's stream
 * ({@link ChunkedBodyWriter}). While a connection has one, it handles no further request.
 *
 * <p>Thread: the owning loop, except where an implementation says otherwise.
 */
public interface BodySource {
    /**
     * Moves as much of the body toward the socket as backpressure allows: into the connection's
     * output ({@link Connection#out()}, emptied with {@link Connection#drain()}) or straight to
     * the socket. Returns {@code true} once the whole body has been handed over.
     *
     * @throws IOException when the body cannot be read; the connection is then closed (the client sees
     *     a truncated message)
     */
    boolean pump(Connection c) throws IOException;

    /** The connection closed or gave up on the body: free what it holds. Idempotent. */
    void abort();

    /**
     * Encodes the head of {@code res}, whose body is a file or a producer ({@link ResponseView#FILE},
     * {@link ResponseView#PRODUCER}), into {@code c} and returns the source of its body. {@code req} is
     * the view the handler was given: a producer must not read it once the handler has returned.
     *
     * @return the body source; {@link OffLoopHost#startBody} it with {@code keepAlive} as given back
     *     by {@link #keepAlive(ResponseView, boolean, boolean)}
     */
    static BodySource start(HttpLoop srv, ResponseView res, RequestView req, boolean head, boolean keepAlive,
                            boolean http10, Connection c) {
        boolean bodyAllowed = ResponseEncoder.hasBody(res.statusCode(), head);
        if ((res.special() & ResponseView.PRODUCER) != 0) {
            dev.peregrine.compress.Encoder encoder = srv.compressor() == null ? null
                    : srv.compressor().startIncremental(req, res, !bodyAllowed); // compression hook: adds its headers
            ProducerBody body = new ProducerBody(res.producer(), req, !http10, bodyAllowed, srv.compressor(), encoder);
            srv.encoder().encodeStreamHead(res, -1, keepAlive, http10, c);
            return body;
        }
        long length = res.fileLength();
        long offset = res.fileOffset();
        FileBody body = new FileBody(res.takeFile(), offset, bodyAllowed ? length : 0);
        srv.encoder().encodeStreamHead(res, length, keepAlive, http10, c);
        return body;
    }

    /** Whether the connection may stay open after {@code res}'s body: not for an unframed (HTTP/1.0) stream. */
    static boolean keepAlive(ResponseView res, boolean keepAlive, boolean http10) {
        return keepAlive && !(http10 && (res.special() & ResponseView.PRODUCER) != 0);
    }
}
