package dev.peregrine.h2;

import dev.peregrine.exchange.FileSend;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.exchange.WaitingProducer;
import dev.peregrine.h2.frame.FrameWriter;
import dev.peregrine.h2.hpack.HpackEncoder;
import dev.peregrine.h2.hpack.HpackTable;
import dev.peregrine.http1.Methods;
import dev.peregrine.http1.RequestFields;
import dev.peregrine.http1.ResponseParts;
import dev.peregrine.http1.Status;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * Runs a complete request of a stream through the server's dispatch and writes the answer as frames:
 * HEADERS (with CONTINUATION past the peer's frame size) then DATA, as far as the peer's connection
 * and stream windows allow (§6.9.1). What they hold back is copied into a pooled buffer of the stream
 * and sent as WINDOW_UPDATEs open the windows ({@link #flushBlocked}). A file ({@code sendFile}, one
 * range of any size) is never held in memory: it is read a frame at a time into the loop's buffer
 * while the windows allow and the connection has no unsent output ({@link #pumpFile}), and goes on
 * as WINDOW_UPDATEs arrive and the socket drains. The response fields:
 * <pre>
 *   :status                  the handler's status (one byte for the common ones)
 *   server, date             as HTTP/1.1 sends them
 *   content-type, handler's fields, preformatted fields, x-request-id
 *                            minus the connection-specific ones (§8.2.2)
 *   content-length           the body's (or the file range's) length, but for 204 and 304
 * </pre>
 * The loop's {@link HpackEncoder} codes them against this connection's copy of the peer's HPACK table
 * ({@code Http2Connection.responseTable}, made at the response to the second stream, {@link #encoder}), so
 * the fields every response repeats are one byte each; a response whose fields are those of the
 * response before it on the connection, the table unchanged since, sends that block's bytes again
 * without encoding ({@link ResponseRepeat}).
 * Thread: the loop thread.
 */
final class Http2Responder {
    /** The most of a file read for one DATA frame (RFC 9113's default SETTINGS_MAX_FRAME_SIZE). */
    static final int FILE_FRAME = 16 * 1024;

    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private static final byte[] SERVER = {'P', 'e', 'r', 'e', 'g', 'r', 'i', 'n', 'e'};
    /** Static names (RFC 7541 Appendix A) of the fields every response has. */
    private static final int SERVER_NAME = 54;
    private static final int DATE_NAME = 33;
    private static final int CONTENT_TYPE_NAME = 31;
    private static final int CONTENT_LENGTH_NAME = 28;
    private final Http2Connection conn;

    Http2Responder(Http2Connection conn) {
        this.conn = conn;
    }

    /** Dispatches the request whose fields are {@code [from, headEnd)} of {@code buf} and whose body follows them. */
    void dispatch(Http2Stream s, ByteBuffer buf, int from, int headEnd, int bodyLength) {
        StreamDispatch d = conn.dispatch();
        RequestView req = d.request();
        ResponseView res = d.response();
        RequestHeaders.fill(req, buf, from, headEnd);
        req.setBody(buf, headEnd, bodyLength);
        if (s.trailers != null) {
            req.setTrailers(s.trailers); // RFC 9113 §8.1, kept apart from the fields
        }
        RequestFields.contentLength(req, s.declaredLength >= 0 ? s.declaredLength : bodyLength > 0 ? bodyLength : -1);
        dispatched(s, d.dispatch(conn.c, conn, s.id, req, res), res, req.methodId() == Methods.HEAD);
    }

    /**
     * A request whose large body is still to come ({@link StreamDispatch#dispatchStreamed}): its fields
     * are {@code [from, headEnd)} of {@code buf}, its body empty so far. Returns the dispatch's outcome;
     * on {@link StreamDispatch#NOT_STREAMED} nothing was done and the body is gathered as any other.
     */
    int dispatchStreamed(Http2Stream s, ByteBuffer buf, int from, int headEnd) {
        StreamDispatch d = conn.dispatch();
        RequestView req = d.request();
        ResponseView res = d.response();
        RequestHeaders.fill(req, buf, from, headEnd);
        req.setBody(buf, headEnd, 0);
        RequestFields.contentLength(req, s.declaredLength);
        int outcome = d.dispatchStreamed(conn.c, conn, s.id, req, res, s.declaredLength);
        if (outcome != StreamDispatch.NOT_STREAMED) {
            dispatched(s, outcome, res, req.methodId() == Methods.HEAD); // answered at once: finish() resets the open stream (NO_ERROR)
        }
        return outcome;
    }

    private void dispatched(Http2Stream s, int outcome, ResponseView res, boolean head) {
        if (outcome == StreamDispatch.LATER) {
            s.awaiting = true; // the handler runs off the loop: Http2Connection.answer brings its response
        } else if (outcome == StreamDispatch.HTTP_1_1_REQUIRED) {
            refuse(s);
        } else {
            respond(s, res, head);
        }
    }

    /** §8.7, §7: the answer needs HTTP/1.1 here; clients retry the request over it. */
    void refuse(Http2Stream s) {
        FrameWriter.rstStream(conn.c, s.id, HTTP_1_1_REQUIRED);
        conn.closeStream(s);
    }

    /**
     * An interim response (RFC 9113 §8.1): HEADERS with {@code status} (1xx) and {@code headers}
     * (name, value pairs), without END_STREAM; the final response follows on the stream.
     */
    void interim(Http2Stream s, int status, String[] headers) {
        HpackEncoder e = encoder(s);
        e.status(status);
        for (int i = 0; i + 1 < headers.length; i += 2) {
            if (!connectionSpecific(headers[i])) {
                e.field(headers[i], headers[i + 1]);
            }
        }
        FrameWriter.headers(conn.c, s.id, false, e.block(), e.length(), conn.peerMaxFrameSize);
    }

    /** Answers a stream with the server's own error {@code status} before its request is complete (or at once). */
    void earlyAnswer(Http2Stream s, int status) {
        ResponseView res = conn.dispatch().response();
        res.reset();
        res.error(status);
        respond(s, res, false);
    }

    /** Encodes the final response {@code res} on {@code s}: HEADERS, then DATA as the windows allow. */
    void respond(Http2Stream s, ResponseView res, boolean head) {
        s.awaiting = false;
        int status = ResponseParts.status(res);
        boolean bodyAllowed = status != 204 && status != 304;
        boolean file = res.special() == ResponseView.FILE;
        boolean produced = res.special() == ResponseView.PRODUCER; // length unknown: no content-length (§8.1.1)
        long length = !bodyAllowed ? 0 : file ? res.file().length() : produced ? -1 : ResponseParts.bodyLength(res);
        long sentLength = bodyAllowed && !produced ? length : -1;
        boolean noData = head || length == 0;
        HpackEncoder e = encoder(s);
        HpackTable table = conn.responseTable;
        byte[] date = conn.dispatch().dateLine(); // "Date: " value "\r\n"
        ResponseRepeat repeat = conn.shared.repeat;
        if (e.length() == 0 && ResponseRepeat.eligible(table, res)) { // no size update starts this block
            if (repeat.matches(table, res, sentLength, date, 6, date.length - 8)) {
                FrameWriter.headers(conn.c, s.id, noData, repeat.block(), repeat.length(), conn.peerMaxFrameSize);
            } else {
                int version = table.version();
                fields(e, res, status, date, sentLength);
                repeat.remember(table, version, e.block(), e.length(), res, sentLength, date, 6, date.length - 8);
                FrameWriter.headers(conn.c, s.id, noData, e.block(), e.length(), conn.peerMaxFrameSize);
            }
        } else {
            fields(e, res, status, date, sentLength);
            FrameWriter.headers(conn.c, s.id, noData, e.block(), e.length(), conn.peerMaxFrameSize);
        }
        s.responding = true;
        if (file) {
            startFile(s, res.takeFile(), noData ? 0 : length);
            return;
        }
        if (produced && !noData) {
            s.producer = res.producer();
            // res.outputStream off the loop: the stream stays its exchange's (PendingStream.pump) while the
            // handler writes; its exchange's timeout, not the connection's, bounds a handler that writes nothing
            s.awaiting = s.producer instanceof WaitingProducer;
            if (pumpProducer(s)) {
                finish(s);
            }
            return;
        }
        if (produced && res.producer() instanceof WaitingProducer) {
            ((WaitingProducer) res.producer()).discard(); // HEAD, 204, 304: the writer's bytes go nowhere
        }
        if (noData) {
            finish(s);
            return;
        }
        int bytes = (int) length;
        byte[] body;
        if (ResponseParts.bodyKind(res) == dev.peregrine.http1.ResponseSource.BODY_BYTES) {
            body = ResponseParts.bodyBytes(res); // sent from the handler's array, [0, length): no staging copy
        } else {
            body = conn.shared.body(bytes);
            ResponseParts.copyBody(res, body);
        }
        int sent = send(s, body, 0, bytes);
        if (sent == bytes) {
            finish(s);
            return;
        }
        s.pending = conn.pool().acquire(bytes - sent);
        s.pending.put(0, body, sent, bytes - sent);
        s.pendingFrom = 0;
        s.pendingTo = bytes - sent;
    }

    /** Encodes the fields of the final response {@code res} (class javadoc); {@code contentLength} -1: none. */
    private void fields(HpackEncoder e, ResponseView res, int status, byte[] date, long contentLength) {
        e.status(status);
        e.field(SERVER_NAME, SERVER, 0, SERVER.length);
        e.field(DATE_NAME, date, 6, date.length - 8);
        CharSequence type = ResponseParts.contentType(res);
        if (type != null) {
            e.field(CONTENT_TYPE_NAME, type);
        }
        for (int i = 0, n = ResponseParts.headerCount(res); i < n; i++) {
            String name = ResponseParts.headerName(res, i);
            if (!connectionSpecific(name)) {
                e.field(name, ResponseParts.headerValue(res, i));
            }
        }
        byte[] lines = ResponseParts.fields(res);
        if (lines != null) {
            preformatted(e, lines);
        }
        CharSequence id = ResponseParts.requestId(res);
        if (id != null) {
            e.field("x-request-id", id);
        }
        if (contentLength >= 0) {
            byte[] digits = conn.shared.digits; // the loop's: an idle connection holds no scratch
            int d = decimal(digits, contentLength);
            e.field(CONTENT_LENGTH_NAME, digits, d, digits.length - d);
        }
    }

    /**
     * The loop's encoder, starting a block for stream {@code s} against this connection's table: every
     * block it codes must then be sent, in the order coded, as the peer's decoder adds to its table in
     * that order. Stream 1 (a connection's first request, also the h2c upgrade's) is answered without a
     * table, which is made at the next stream: a connection that makes one request never needs it (an
     * idle connection then holds none: issue 28's ≤ 512 B), and a table pays only from the second
     * response on, when the fields repeat.
     */
    private HpackEncoder encoder(Http2Stream s) {
        HpackEncoder e = conn.shared.encoder;
        HpackTable table = conn.responseTable;
        if (table == null && s.id <= 1) {
            e.resetStateless(PeerSettings.lowestTableSize(conn), PeerSettings.tableSize(conn));
        } else {
            if (table == null) {
                table = conn.responseTable = new HpackTable(HpackEncoder.TABLE_SIZE);
            }
            e.reset(table, PeerSettings.lowestTableSize(conn), PeerSettings.tableSize(conn));
        }
        PeerSettings.tableSizeSeen(conn);
        return e;
    }

    /** After its HEADERS, {@code length} bytes of the file {@code f} follow as DATA ({@link #pumpFile}). */
    private void startFile(Http2Stream s, FileSend f, long length) {
        try {
            s.file = f.open(); // opened by the dispatch already (a file gone was answered 404 there)
        } catch (IOException e) {
            FrameWriter.rstStream(conn.c, s.id, INTERNAL_ERROR); // the head has left: the stream is cut
            conn.closeStream(s);
            return;
        }
        s.filePosition = f.offset();
        s.fileRemaining = length;
        s.parts = f.parts(); // several ranges (multipart/byteranges): their heads between them
        s.partSegment = 0;
        s.filePosition = s.parts != null ? 0 : s.filePosition;
        if (pumpFile(s)) {
            finish(s);
        }
    }

    /**
     * Sends the stream's file as DATA, a frame read at a time, while the peer's windows allow and the
     * socket keeps up (nothing of this connection's output is held back); true once all of it has
     * left (the file is then closed). A window at zero waits for WINDOW_UPDATE, bounded by the STALLED
     * timer; a socket behind, for {@code onOutputReady}. So a peer that reads nothing holds at most the
     * connection's backlog, never the file.
     */
    private boolean pumpFile(Http2Stream s) {
        while (s.fileRemaining > 0) {
            if (conn.c.pendingOutput() > 0) {
                return false;
            }
            int n = allowance(s, (int) Math.min(s.fileRemaining, FILE_FRAME));
            if (n <= 0) {
                return false;
            }
            ByteBuffer buf = conn.shared.file(n);
            try {
                if (s.parts != null) {
                    fillParts(s, buf);
                } else {
                    while (buf.hasRemaining()) {
                        if (s.file.read(buf, s.filePosition + buf.position()) < 0) {
                            throw new EOFException("file shorter than when it was sized");
                        }
                    }
                    s.filePosition += n;
                }
            } catch (IOException e) {
                FrameWriter.rstStream(conn.c, s.id, INTERNAL_ERROR); // the head has left: the stream is cut (§8.1)
                conn.closeStream(s);
                return false;
            }
            FrameWriter.data(conn.c, s.id, n == s.fileRemaining, buf, 0, n);
            take(s, n);
            s.fileRemaining -= n;
            conn.c.restartTimerPhase(); // the window opened: a STALLED wait starts again
        }
        s.closeFile();
        return true;
    }

    /**
     * Fills {@code buf} with the next bytes of a body of several ranges ({@code FileParts}), walking its
     * segments: even ones are the heads in memory (segment {@code 2i} is head {@code i}, the last the
     * closing piece), odd ones the file's ranges (segment {@code 2i+1} is range {@code i}); the stream's
     * {@code filePosition} is how far into the current segment it is.
     */
    private static void fillParts(Http2Stream s, ByteBuffer buf) throws IOException {
        dev.peregrine.exchange.FileParts p = s.parts;
        while (buf.hasRemaining()) {
            int i = s.partSegment >> 1;
            long size = (s.partSegment & 1) == 0 ? p.head(i).length : p.length(i);
            int n = (int) Math.min(buf.remaining(), size - s.filePosition);
            if ((s.partSegment & 1) == 0) {
                buf.put(p.head(i), (int) s.filePosition, n);
            } else if (n > 0) {
                int limit = buf.limit();
                buf.limit(buf.position() + n);
                while (buf.hasRemaining()) {
                    if (s.file.read(buf, p.offset(i) + s.filePosition + n - buf.remaining()) < 0) {
                        throw new EOFException("file shorter than when it was sized");
                    }
                }
                buf.limit(limit);
            }
            s.filePosition += n;
            if (s.filePosition == size) {
                s.partSegment++;
                s.filePosition = 0;
            }
        }
    }

    /**
     * Pulls the stream's producer ({@code res.stream}) a frame at a time, as {@link #pumpFile} reads a
     * file: only while the windows allow and the connection has no unsent output, so a slow peer slows
     * the producer; the piece it ends with carries END_STREAM. True once it has ended. A producer that
     * throws, or returns true having put nothing, cuts the stream (RST_STREAM INTERNAL_ERROR, one
     * WARNING); the connection's other streams go on.
     */
    private boolean pumpProducer(Http2Stream s) {
        while (s.producer != null) {
            if (conn.c.pendingOutput() > 0 || !ready(s.producer)) {
                return false; // the socket's drain, the writer (PipedOutput's wake) or a WINDOW_UPDATE resumes it
            }
            int n = allowance(s, FILE_FRAME);
            if (n <= 0) {
                return false;
            }
            ByteBuffer buf = conn.shared.file(n);
            boolean more;
            try {
                more = s.producer.produce(buf);
                if (more && buf.position() == 0) {
                    throw new IllegalStateException("BodyProducer.produce returned true without putting a byte");
                }
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, (s.producer instanceof WaitingProducer ? "handler failed after its streamed"
                        + " response began" : "body producer failed") + "; HTTP/2 stream " + s.id + " reset mid-body", t);
                FrameWriter.rstStream(conn.c, s.id, INTERNAL_ERROR);
                conn.closeStream(s);
                return false;
            }
            int len = buf.position();
            FrameWriter.data(conn.c, s.id, !more, buf, 0, len);
            take(s, len);
            if (!more) {
                s.producer = null;
            }
            conn.c.restartTimerPhase(); // progress: a STALLED wait starts again
        }
        return true;
    }

    /** Whether {@code p} has something to give now (a {@link WaitingProducer} may owe its writer's bytes). */
    static boolean ready(dev.peregrine.BodyProducer p) {
        return !(p instanceof WaitingProducer) || ((WaitingProducer) p).ready();
    }

    /** Pulls {@code s}'s producer after its writer gave it bytes (or its end). */
    void pump(Http2Stream s) {
        if (s.producer != null && pumpProducer(s)) {
            finish(s);
        }
    }

    /** Whether some stream is sending a file or a producer's body. */
    boolean sendingBody() {
        for (int i = 0; i < conn.streams.count(); i++) {
            if (conn.streams.at(i).file != null || conn.streams.at(i).producer != null) {
                return true;
            }
        }
        return false;
    }

    /** Sends DATA from {@code [off, off+len)} as far as the windows allow; returns how many bytes left. */
    private int send(Http2Stream s, byte[] src, int off, int len) {
        int sent = 0;
        while (sent < len) {
            int n = allowance(s, len - sent);
            if (n <= 0) {
                break;
            }
            FrameWriter.data(conn.c, s.id, sent + n == len, src, off + sent, n);
            take(s, n);
            sent += n;
        }
        return sent;
    }

    private int allowance(Http2Stream s, int want) {
        return (int) Math.min(Math.min(want, conn.peerMaxFrameSize), Math.min(conn.sendWindow, s.sendWindow));
    }

    private void take(Http2Stream s, int n) {
        conn.sendWindow -= n;
        s.sendWindow -= n;
    }

    /** After input, or once the socket drained: sends what the windows now let out of every stream's held body. */
    void flushBlocked() {
        for (int i = 0; i < conn.streams.count() && conn.sendWindow > 0; i++) {
            Http2Stream s = conn.streams.at(i);
            if (!s.blocked()) {
                continue;
            }
            if (s.file != null || s.producer != null) {
                if (s.file != null ? pumpFile(s) : pumpProducer(s)) {
                    finish(s);
                }
                if (i >= conn.streams.count() || conn.streams.at(i) != s) {
                    i--; // the stream left the list
                }
                continue;
            }
            while (s.pendingFrom < s.pendingTo) {
                int n = allowance(s, s.pendingTo - s.pendingFrom);
                if (n <= 0) {
                    break;
                }
                FrameWriter.data(conn.c, s.id, s.pendingFrom + n == s.pendingTo, s.pending, s.pendingFrom, n);
                take(s, n);
                s.pendingFrom += n;
            }
            if (s.pendingFrom == s.pendingTo) {
                finish(s);
                i--; // the stream left the list
            }
        }
    }

    /** Whether some stream's DATA waits for the peer's window. */
    boolean stalled() {
        for (int i = 0; i < conn.streams.count(); i++) {
            if (conn.streams.at(i).blocked()) {
                return true;
            }
        }
        return false;
    }

    /** The response is out: the stream closes; one whose request had not ended is reset (§8.1). */
    private void finish(Http2Stream s) {
        boolean open = s.state == Http2Stream.OPEN;
        int id = s.id;
        if (open) {
            FrameWriter.rstStream(conn.c, id, NO_ERROR);
        }
        conn.closeStream(s);
        if (open) {
            conn.streams.noteReset(id); // what the client already sent on it is ignored (§5.1)
        }
    }

    /** Preformatted {@code Name: value\r\n} lines ({@code ResponseView.fields}). */
    private static void preformatted(HpackEncoder e, byte[] lines) {
        int p = 0;
        while (p < lines.length) {
            int colon = p;
            while (colon < lines.length && lines[colon] != ':') {
                colon++;
            }
            int v = colon + 1;
            while (v < lines.length && (lines[v] == ' ' || lines[v] == '\t')) {
                v++;
            }
            int cr = v;
            while (cr < lines.length && lines[cr] != '\r') {
                cr++;
            }
            if (colon >= lines.length) {
                return;
            }
            e.field(lines, p, colon - p, lines, v, cr - v);
            p = cr + 2;
        }
    }

    private static boolean connectionSpecific(String name) {
        return name.equalsIgnoreCase("connection") || name.equalsIgnoreCase("keep-alive")
                || name.equalsIgnoreCase("transfer-encoding") || name.equalsIgnoreCase("upgrade")
                || name.equalsIgnoreCase("proxy-connection");
    }

    /** Writes {@code v} right-aligned in {@code digits}; returns where it begins. */
    private static int decimal(byte[] digits, long v) {
        int i = digits.length;
        do {
            digits[--i] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        return i;
    }
}
