package dev.peregrine.h2;

import dev.peregrine.h2.frame.FrameWriter;

import java.nio.ByteBuffer;

import static dev.peregrine.h2.frame.Frames.PROTOCOL_ERROR;

/**
 * A stream's request body as its DATA arrives, and the stream's receive window: gathered in memory
 * (the window given back on arrival, half a window at a time; END_STREAM dispatches the request), or
 * handed to its handler in pieces ({@link Http2Stream#body}, a {@link StreamBody}), where the window
 * is given back only for bytes the handler consumed, never on arrival: the backpressure.
 * <pre>
 *   DATA (payload P, padding D)                           the handler consumed n ({@link PendingStream#bodyConsumed})
 *     D: given back at once (no handler consumes it)        window += n (WINDOW_UPDATE once half a window is owed)
 *     nothing held: offer(P) to the body; the rest held     held bytes offered again, in order
 *     bytes held:  P held behind them
 *
 *   held bytes: [stagedFrom, stagedTo) of the stream's pooled buffer (Http2Stream.request), grown as needed
 *   held + in the handler's hands  &lt;=  the window we advertised (initialStreamWindow): the peer cannot
 *   send more before we give some back, and we give back only what the handler took and consumed
 * </pre>
 * The connection window is given back on arrival of every DATA ({@code Http2Connection.data}), so a slow
 * stream holds its own window and never the connection's. {@code content-length} is checked against
 * END_STREAM here (§8.1.1), and past it by the connection before the offer. Without
 * {@code content-length}, END_STREAM tells the body its total ({@link StreamBody#ended}).
 *
 * <p>Thread: the loop thread. No state of its own: everything is the stream's.
 */
final class BodyFeed {
    private BodyFeed() {
    }

    /**
     * DATA of {@code s} (open, its windows checked): {@code n} body bytes at {@code from} of {@code b}
     * (the frame's payload, a view valid during the call) in a frame of {@code length} bytes, END_STREAM
     * if {@code end}. Past {@code content-length}: PROTOCOL_ERROR (§8.1.1).
     */
    static void data(Http2Connection conn, Http2Stream s, ByteBuffer b, int from, int length, int n, boolean end) {
        long total = (s.body != null ? s.received : s.bodyLength) + (long) n;
        if (s.declaredLength >= 0 && total > s.declaredLength) {
            conn.streamError(s.id, PROTOCOL_ERROR); // §8.1.1
            return;
        }
        if (s.body != null) {
            s.received = total;
            pieces(conn, s, b, from, length - n, n, end);
            return;
        }
        if (total > conn.dispatch().maxBodySize() || s.headEnd + total > conn.pool().maxBufferSize()) {
            conn.responder.earlyAnswer(s, 413);
            return;
        }
        if (s.request.capacity() < s.headEnd + (int) total) {
            s.request = conn.pool().grow(s.request, 0, s.headEnd + s.bodyLength, s.headEnd + (int) total);
        }
        s.request.put(s.headEnd + s.bodyLength, b, from, n);
        s.bodyLength = (int) total;
        if (end) {
            s.state = Http2Stream.HALF_CLOSED_REMOTE;
            complete(conn, s);
            return;
        }
        giveBack(conn, s, length); // gathered in memory: given back on arrival
    }

    /**
     * Trailers (HEADERS with END_STREAM, checked; their fields {@code [0, end)} of {@code fields}, laid out
     * by {@link RequestHeaders}) end {@code s}'s body: a body in pieces gets them before its end, a gathered
     * one is dispatched with them. Past the header list size ({@code tooLarge}: not all of them were
     * decoded) they are refused as a head would be: 431, or a body in pieces refused with 431.
     */
    static void trailers(Http2Connection conn, Http2Stream s, ByteBuffer fields, int end, boolean tooLarge) {
        s.state = Http2Stream.HALF_CLOSED_REMOTE;
        if (tooLarge) {
            conn.shared.counters.headerListTooLarge++;
            if (s.body != null) {
                s.body.trailersTooLarge();
            } else {
                conn.responder.earlyAnswer(s, 431);
            }
            return;
        }
        s.trailers = RequestHeaders.strings(fields, 0, end);
        if (s.body != null) {
            if (s.trailers != null) {
                s.body.trailers(s.trailers);
                s.trailers = null;
            }
            ended(conn, s);
        } else {
            complete(conn, s);
        }
    }

    /**
     * END_STREAM of a gathered body (DATA or trailers; an h2c upgrade's request once the client's preface
     * is in): it must be what content-length said (§8.1.1); then the request is dispatched.
     */
    static void complete(Http2Connection conn, Http2Stream s) {
        if (s.declaredLength >= 0 && s.bodyLength != s.declaredLength) {
            conn.streamError(s.id, PROTOCOL_ERROR);
            return;
        }
        ByteBuffer req = s.request;
        s.request = null;
        conn.responder.dispatch(s, req, 0, s.headEnd, s.bodyLength);
        conn.pool().release(req);
    }

    /** DATA of a body in pieces: {@code padding} bytes of padding, given back at once (no handler consumes them). */
    private static void pieces(Http2Connection conn, Http2Stream s, ByteBuffer b, int from, int padding, int n, boolean end) {
        if (padding > 0) {
            giveBack(conn, s, padding);
        }
        if (n > 0 && s.stagedFrom == s.stagedTo) {
            int took = s.body.offer(b, from, n);
            from += took;
            n -= took;
        }
        if (n > 0) {
            hold(conn, s, b, from, n);
        }
        if (end) {
            s.state = Http2Stream.HALF_CLOSED_REMOTE;
            ended(conn, s);
        }
    }

    /**
     * END_STREAM of a body in pieces: its total is now known (the body ends once the bytes held are
     * offered); with a content-length it must be what that said (§8.1.1), or the handler's body stream
     * throws, as on a lost connection.
     */
    private static void ended(Http2Connection conn, Http2Stream s) {
        if (s.declaredLength < 0 || s.received == s.declaredLength) {
            s.body.ended(s.received);
        } else {
            conn.streamError(s.id, PROTOCOL_ERROR);
        }
    }

    /** Holds {@code [from, from+n)} of {@code b} behind the stream's held bytes, in a pooled buffer grown as needed. */
    private static void hold(Http2Connection conn, Http2Stream s, ByteBuffer b, int from, int n) {
        int held = s.stagedTo - s.stagedFrom;
        if (s.request == null) {
            s.request = conn.pool().acquire(Math.max(n, 16 * 1024));
        } else if (s.stagedTo + n > s.request.capacity()) {
            if (held + n <= s.request.capacity()) {
                // moved to the front: an absolute bulk put within one buffer copies as if through a temporary
                s.request.put(0, s.request, s.stagedFrom, held);
            } else {
                s.request = conn.pool().grow(s.request, s.stagedFrom, held, Math.max(held + n, 2 * s.request.capacity()));
            }
            s.stagedFrom = 0;
            s.stagedTo = held;
        }
        s.request.put(s.stagedTo, b, from, n);
        s.stagedTo += n;
    }

    /**
     * The handler of {@code s} consumed {@code bytes} of its body ({@link PendingStream#bodyConsumed}):
     * held bytes move on to it, and its window reopens by as much. From a loop task (a blocking handler
     * gave a chunk back: {@code now}) the WINDOW_UPDATE is written at once; from inside the connection's
     * input (a listener returned) it leaves with that read's batch.
     */
    static void consumed(Http2Connection conn, Http2Stream s, int bytes, boolean now) {
        giveBack(conn, s, bytes);
        while (s.body != null && s.stagedFrom < s.stagedTo) {
            int took = s.body.offer(s.request, s.stagedFrom, s.stagedTo - s.stagedFrom);
            if (took == 0) {
                break;
            }
            s.stagedFrom += took;
        }
        if (s.stagedFrom == s.stagedTo) {
            s.stagedFrom = 0;
            s.stagedTo = 0;
        }
        if (now) {
            conn.c.flush();
        }
    }

    /** Reopens the stream's receive window by {@code n}: a WINDOW_UPDATE once half a window is owed, while the peer may still send. */
    private static void giveBack(Http2Connection conn, Http2Stream s, int n) {
        if (s.state != Http2Stream.OPEN) {
            return; // END_STREAM came: nothing more will be sent on it
        }
        s.recvUnacked += n;
        if (s.recvUnacked >= conn.settings.initialStreamWindow / 2) {
            FrameWriter.windowUpdate(conn.c, s.id, s.recvUnacked);
            s.recvWindow += s.recvUnacked;
            s.recvUnacked = 0;
        }
    }
}
