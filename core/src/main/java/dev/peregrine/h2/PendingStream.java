package dev.peregrine.h2;

import dev.peregrine.exchange.ResponseView;
import dev.peregrine.loop.Connection;

/**
 * A stream whose handler runs off the loop ({@link StreamDispatch#LATER}: a blocking route, an
 * inline handler that called {@code res.async()}): what its answer comes back through, on the loop,
 * while the connection's other streams go on. Stream ids are never reused on a connection, so the
 * connection and the id name the stream for good: once the client reset it or the connection ended
 * ({@link #live} false), whatever comes is dropped.
 * <pre>
 *   dispatch returns LATER --&gt; stream awaiting (half closed (remote), no timer of the connection's:
 *                                the exchange's own timeout bounds the wait)
 *     interim(1xx)  --&gt; HEADERS without END_STREAM (§8.1), written at once
 *     answer(res)   --&gt; HEADERS + DATA as the peer's windows allow, written at once
 *                       (res.outputStream: the stream stays awaiting while its writer writes;
 *                        pump() after each wake, END_STREAM when it closes)
 *     refuse()      --&gt; RST_STREAM HTTP_1_1_REQUIRED (§8.7)
 *   a body in pieces (dispatched at HEADERS, stream still open): receive(body) at dispatch, then
 *     bodyConsumed(n) --&gt; held DATA moves on to the body, the stream window reopens by n
 *   RST_STREAM from the client / connection closed --&gt; not live: all of the above are dropped
 * </pre>
 * Thread: the connection's loop thread.
 */
public final class PendingStream {
    private final Http2Connection conn;
    private final int id;

    private PendingStream(Http2Connection conn, int id) {
        this.conn = conn;
        this.id = id;
    }

    /** The handle of stream {@code id} of {@code conn}, being dispatched now. */
    public static PendingStream of(Http2Connection conn, int id) {
        return new PendingStream(conn, id);
    }

    public Connection connection() {
        return conn.c;
    }

    /** Whether the stream still waits for its answer (not reset, connection open). */
    public boolean live() {
        return stream() != null;
    }

    private Http2Stream stream() {
        if (conn.c == null || !conn.c.isOpen()) {
            return null;
        }
        Http2Stream s = conn.streams.get(id);
        return s != null && s.awaiting ? s : null;
    }

    /** The final response: encoded on the stream and written; dropped when the stream is gone. */
    public void answer(ResponseView res, boolean head) {
        Http2Stream s = stream();
        if (s != null) {
            conn.responder.respond(s, res, head);
            written();
        }
    }

    /** An interim response (1xx) before the final one. */
    public void interim(int status, String[] headers) {
        Http2Stream s = stream();
        if (s != null) {
            conn.responder.interim(s, status, headers);
            written();
        }
    }

    /**
     * An inline handler's interim response on stream {@code id} of {@code conn}: into the batch now,
     * ahead of the final response the handler is making.
     */
    public static void interimInline(Http2Connection conn, int id, int status, String[] headers) {
        Http2Stream s = conn.streams.get(id);
        if (s != null && !s.responding) {
            conn.responder.interim(s, status, headers);
        }
    }

    /** Its handler's output stream has bytes (or its end) again: DATA as the windows allow. */
    public void pump() {
        Http2Stream s = stream();
        if (s != null) {
            conn.responder.pump(s);
            written();
        }
    }

    /**
     * The stream's request body goes to {@code body} as its DATA arrives ({@link StreamDispatch#dispatchStreamed});
     * called during the dispatch, while the stream is open.
     */
    public void receive(StreamBody body) {
        Http2Stream s = conn.streams.get(id);
        if (s != null) {
            s.body = body;
        }
    }

    /**
     * The handler consumed {@code bytes} of the stream's request body: held bytes move on to it and the
     * stream's window reopens by as much (WINDOW_UPDATE once half a window is owed), written at once when
     * {@code now} (from a loop task; not from inside the sink's {@link StreamBody#offer}, whose read's
     * batch carries it). Dropped when the stream is gone.
     */
    public void bodyConsumed(int bytes, boolean now) {
        if (conn.c == null || !conn.c.isOpen()) {
            return;
        }
        Http2Stream s = conn.streams.get(id);
        if (s != null && s.body != null) {
            BodyFeed.consumed(conn, s, bytes, now);
        }
    }

    /** The answer needs HTTP/1.1 here: RST_STREAM HTTP_1_1_REQUIRED. */
    public void refuse() {
        Http2Stream s = stream();
        if (s != null) {
            conn.responder.refuse(s);
            written();
        }
    }

    private void written() {
        conn.c.flush();
        conn.c.updateTimer();
    }
}
