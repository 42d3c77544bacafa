package dev.peregrine.h2;

import dev.peregrine.buffer.BufferPool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One HTTP/2 stream of a server connection: its state, its two flow-control windows, the request
 * held while its body arrives, and the response body the peer's window has not let out yet.
 *
 * <p><b>States</b> (RFC 9113 §5.1, the server's side; PUSH_PROMISE and the reserved states are never
 * used, as this server does not push):
 * <pre>
 *                          +--------+
 *                  recv H  |        |  recv H + ES (a GET: dispatched at once)
 *              ,-----------|  idle  |-------------------------.
 *             v            +--------+                          v
 *        +--------+                                       +----------+
 *        |  open  |---recv ES (DATA or trailers)--------->|   half   |
 *        |        |   request complete: dispatched        |  closed  |
 *        +--------+                                       | (remote) |
 *          |  |                                           +----------+
 *          |  | send R / recv R                              |   |  send ES (last DATA, or HEADERS
 *          |  '----------------------.                       |   |  when the body is empty; the
 *          |                         v                       |   |  window may hold DATA back: then
 *          | send H + ES (early      +--------+  send R /    |   |  the stream waits in SENDING)
 *          | answer: 413, 431;       |        |  recv R      |   |
 *          | then send R NO_ERROR)   | closed |<-------------'   |
 *          '------------------------>|        |<-----------------'
 *                                    +--------+
 *   H: HEADERS (+CONTINUATION)   ES: END_STREAM flag   R: RST_STREAM
 * </pre>
 * A request body handed over in pieces ({@link #body}: a streaming or blocking route, its
 * {@code content-length} above {@code streamBodyThreshold}) is dispatched at its HEADERS: the stream
 * then waits for its handler ({@link #awaiting}) while still open, its DATA going to the handler.
 * In half closed (remote) the stream may wait for a handler off the loop ({@link #awaiting}); the
 * connection's other streams go on meanwhile. A RST_STREAM or the connection's end then closes it and
 * the handler's late answer is dropped. Interim responses (1xx) leave as HEADERS without END_STREAM
 * before the final HEADERS, in any of open and half closed (remote) (§8.1).
 * A closed stream is forgotten at once; the connection remembers the highest id it opened
 * (everything at or below it that is not open is closed) and the last few closed ids, to tell
 * STREAM_CLOSED from PROTOCOL_ERROR (§5.1).
 *
 * <p>Thread: the loop thread.
 */
final class Http2Stream {
    static final int OPEN = 1;
    static final int HALF_CLOSED_REMOTE = 2;

    int id;
    int state;
    /** What we may still send on this stream (the peer's window); may go negative (§6.9.2). */
    long sendWindow;
    /** What the peer may still send us on this stream before our next WINDOW_UPDATE. */
    long recvWindow;
    /** Received bytes not yet given back by a WINDOW_UPDATE. */
    int recvUnacked;

    /** The request's decoded fields ({@link RequestHeaders} layout) then its body, while the body arrives. */
    ByteBuffer request;
    int headEnd;
    int bodyLength;
    long declaredLength;

    /** Response bytes still to send as DATA, {@code [pendingFrom, pendingTo)} of {@link #pending}. */
    ByteBuffer pending;
    int pendingFrom;
    int pendingTo;
    /**
     * A file sent as DATA ({@code sendFile}): read a frame at a time as the peer's windows and the
     * socket allow, so a peer that reads nothing holds no more than the socket's backlog; null when none.
     */
    FileChannel file;
    /** Where the next read of {@link #file} begins; with {@link #parts}, how far into the current segment. */
    long filePosition;
    long fileRemaining;
    /** Several ranges of {@link #file} with heads between them (multipart/byteranges), or null. */
    dev.peregrine.exchange.FileParts parts;
    /** With {@link #parts}: the segment being sent (2i: head i, 2i+1: range i). */
    int partSegment;
    /** A body of unknown length ({@code res.stream}), pulled a frame at a time as {@link #file} is; null when none. */
    dev.peregrine.BodyProducer producer;
    /** Set once the response's HEADERS left: what remains is DATA. */
    boolean responding;
    /** Set while the stream's handler runs off the loop: its answer comes later ({@link StreamDispatch#LATER}). */
    boolean awaiting;
    /**
     * The request body handed over in pieces as DATA arrives ({@link StreamBody}), or null when the
     * body is gathered in {@link #request}. Bytes it could not take yet wait in {@link #request} at
     * {@code [stagedFrom, stagedTo)}; the stream window is given back only as the handler consumes,
     * so they never exceed the window we advertised.
     */
    StreamBody body;
    /** With {@link #body}: the body bytes received so far (a streamed body may pass 2 GiB). */
    long received;
    int stagedFrom;
    int stagedTo;
    /** The request's trailing HEADERS (name, value...; RFC 9113 §8.1) until the request is dispatched; null when none. */
    String[] trailers;

    void reset(int id, long sendWindow, long recvWindow) {
        this.id = id;
        this.state = OPEN;
        this.sendWindow = sendWindow;
        this.recvWindow = recvWindow;
        this.recvUnacked = 0;
        this.request = null;
        this.headEnd = 0;
        this.bodyLength = 0;
        this.declaredLength = -1;
        this.pending = null;
        this.pendingFrom = 0;
        this.pendingTo = 0;
        this.file = null;
        this.fileRemaining = 0;
        this.parts = null;
        this.producer = null;
        this.responding = false;
        this.awaiting = false;
        this.body = null;
        this.received = 0;
        this.stagedFrom = 0;
        this.stagedTo = 0;
        this.trailers = null;
    }

    /** Whether DATA of this stream waits for the peer's window (or, for a file, the socket). */
    boolean blocked() {
        return (pending != null && pendingFrom < pendingTo) || file != null
                || (producer != null && Http2Responder.ready(producer)); // a writer still owing bytes is no stall
    }

    /** The stream is closed: gives back what it holds (pooled buffers, the file). */
    void release(BufferPool pool) {
        if (body != null) {
            StreamBody b = body;
            body = null;
            b.abort(); // ended before its body: the handler's stream throws (harmless once the body ended)
        }
        if (request != null) {
            pool.release(request);
            request = null;
        }
        if (pending != null) {
            pool.release(pending);
            pending = null;
        }
        closeFile();
        if (producer instanceof dev.peregrine.exchange.WaitingProducer) {
            ((dev.peregrine.exchange.WaitingProducer) producer).abort(); // a writer blocked on the ring wakes and fails
        }
        producer = null;
    }

    void closeFile() {
        parts = null;
        if (file != null) {
            try {
                file.close();
            } catch (IOException e) {
                // opened for reading only: nothing is lost
            }
            file = null;
        }
    }
}
