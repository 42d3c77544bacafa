package dev.peregrine.offloop;

import dev.peregrine.exchange.FileSend;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.loop.Connection;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;

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
     * Opens the file {@code res} recorded, on the loop, once the handler has returned and before the
     * response is counted and logged: a file removed since the handler's call (or one that cannot be
     * opened) turns the response into the server's 404 (500) here, so the metrics and the access log
     * see the status that leaves. Returns false then (the response is a plain one now); true when the
     * file is open, was handed over open, or the body is no file.
     */
    public static boolean openFile(ResponseView res) {
        FileSend file = res.file();
        if (file == null || file.path() == null) {
            return true;
        }
        try {
            file.opened(file.open());
            return true;
        } catch (IOException e) {
            res.takeFile(); // nothing is held: open() forgot the path
            res.error(e instanceof NoSuchFileException ? 404 : 500);
            return false;
        }
    }

    /**
     * Encodes the head of {@code res}, whose body is a file or a producer ({@link ResponseView#FILE},
     * {@link ResponseView#PRODUCER}), into {@code c} and returns the source of its body. {@code req} is
     * the view the handler was given: a producer must not read it once the handler has returned. A
     * file is opened by {@link #openFile}, called first; should it not have been, it is opened here,
     * and one gone is answered 404 (500) whole, the source returned having nothing left to send.
     *
     * @return the body source; {@link OffLoopHost#startBody} it with {@code keepAlive} as given back
     *     by {@link #keepAlive(ResponseView, boolean, boolean)}
     */
    static BodySource start(HttpLoop srv, ResponseView res, RequestView req, boolean head, boolean keepAlive,
                            boolean http10, Connection c) {
        boolean bodyAllowed = ResponseEncoder.hasBody(res.statusCode(), head);
        if ((res.special() & ResponseView.PRODUCER) != 0) {
            dev.peregrine.compress.engine.Encoder encoder = srv.compressor() == null ? null
                    : srv.compressor().startIncremental(req, res, !bodyAllowed); // compression hook: adds its headers
            ProducerBody body = new ProducerBody(res.producer(), req, !http10, bodyAllowed, srv.compressor(), encoder);
            srv.encoder().encodeStreamHead(res, -1, keepAlive, http10, c);
            return body;
        }
        FileSend file = res.takeFile();
        long length = file.length();
        long offset = file.offset();
        dev.peregrine.exchange.FileParts parts = file.parts();
        FileChannel channel;
        try {
            channel = file.open(); // the view only recorded the file: it is opened here, on the loop
        } catch (IOException e) {
            // Gone (or unreadable) since the handler's call; the head has not left, so it is answered.
            res.error(e instanceof NoSuchFileException ? 404 : 500);
            srv.encoder().encode(res, head, keepAlive, http10, c);
            return SENT;
        }
        FileBody body = parts != null && bodyAllowed ? new FileBody(channel, parts)
                : new FileBody(channel, offset, bodyAllowed ? length : 0);
        srv.encoder().encodeStreamHead(res, length, keepAlive, http10, c);
        return body;
    }

    /** A body already sent whole with its head: nothing to pump, nothing to free. */
    BodySource SENT = new BodySource() {
        @Override
        public boolean pump(Connection c) {
            return true;
        }

        @Override
        public void abort() {
        }
    };

    /** Whether the connection may stay open after {@code res}'s body: not for an unframed (HTTP/1.0) stream. */
    static boolean keepAlive(ResponseView res, boolean keepAlive, boolean http10) {
        return keepAlive && !(http10 && (res.special() & ResponseView.PRODUCER) != 0);
    }
}
