/*
 * The response reader as it was before its one-pass rewrite (commit bdceed5), kept unchanged but for
 * its name as the baseline ResponseReaderBenchmark measures the current one against in the same run.
 * Not used anywhere else; delete it with the benchmark's before rows.
 */
package dev.peregrine.http1;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Reads one HTTP/1.1 response as a client receives it (RFC 9112 §4, §6), as strict as the request
 * parser: the status line, the fields, then the body by {@code Content-Length}, chunked coding
 * (ChunkedDecoder, extensions and trailers included) or until the connection closes. Interim
 * responses (1xx: {@code 100 Continue}, {@code 103 Early Hints}) are counted and skipped. No body
 * follows a response to HEAD, a 1xx, 204 or 304 (RFC 9110 §6.4.1).
 *
 * <p><b>Restartable,</b> like RequestFramer: on {@link #NEED_MORE} the caller keeps the bytes
 * from the response's first byte (with {@link #keep}, which drops chunk framing already decoded) and
 * calls {@link #read} again from there with more. The head is parsed once it is whole.
 * <pre>
 *   read() --&gt; interim 1xx heads skipped (counted) --&gt; HEAD: NEED_MORE until CRLF CRLF, bad -&gt; error
 *          (the status line is judged as soon as it is whole, and its prefix as soon as it cannot
 *          become HTTP/1.x, so a peer that is not an HTTP server is refused without waiting)
 *          --&gt; no body (HEAD request, 204, 304) | Content-Length | chunked | until close
 *          --&gt; NEED_MORE while the body is incomplete; the message end when complete
 *   atEndOfInput() --&gt; a body read until close is complete; anything else incomplete is an error
 * </pre>
 * Errors are {@code -1000 - reason} codes; {@link #error()} gives the reason as text, which the client
 * puts in its exception with the host.
 *
 * <p>Thread: the connection's loop thread; one per client connection, reused for every response.
 */
public final class ResponseReaderBefore {
    public static final int NEED_MORE = -1;
    /** A response error; {@link #error()} says which. */
    public static final int ERROR = -2;
    /** An interim (1xx) response ended at {@link #interimEnd()}: consume it and read on from there. */
    public static final int INTERIM = -3;

    private static final int MAX_STATUS_LINE = 8 * 1024;

    private final int maxHeadSize;
    private final long maxBodySize;
    private ChunkedDecoder chunked;
    private boolean headRequest;
    private int status;
    private String reason;
    private final ResponseFieldsBefore fields = new ResponseFieldsBefore();
    private final List<String> names = fields.names;
    private final List<String> values = fields.values;
    private long contentLength;
    private int bodyKind;
    private int bodyStart;
    private int bodyLength;
    private int interim;
    private String error;

    /** {@link #bodyFraming()}: no body (HEAD, 204, 304). */
    public static final int BODY_NONE = 0;
    /** {@link #bodyFraming()}: {@link #contentLength()} bytes. */
    public static final int BODY_LENGTH = 1;
    /** {@link #bodyFraming()}: chunked (RFC 9112 §7.1). */
    public static final int BODY_CHUNKED = 2;
    /** {@link #bodyFraming()}: until the connection closes (RFC 9112 §6.3 item 8). */
    public static final int BODY_UNTIL_CLOSE = 3;
    private static final int NONE = BODY_NONE;
    private static final int LENGTH = BODY_LENGTH;
    private static final int CHUNKED = BODY_CHUNKED;
    private static final int UNTIL_CLOSE = BODY_UNTIL_CLOSE;

    public ResponseReaderBefore(int maxHeadSize, long maxBodySize) {
        this.maxHeadSize = maxHeadSize;
        this.maxBodySize = maxBodySize;
    }

    /** Prepares for the response to a new request; {@code head} when that request is HEAD. */
    public void expect(boolean head) {
        headRequest = head;
        status = 0;
        headRel = 0;
        interim = 0;
        error = null;
        if (chunked != null) {
            chunked.reset();
        }
    }

    /**
     * Reads the response starting at {@code pos} of {@code b} (bytes up to {@code end} are there).
     *
     * @return the index after the response, {@link #NEED_MORE} or {@link #ERROR}
     */
    public int read(ByteBuffer b, int pos, int end) {
        if (status == 0) {
            int r = finalHead(b, pos, end);
            if (r < 0) {
                return r;
            }
            if (bodyKind == CHUNKED) {
                if (chunked == null) {
                    chunked = new ChunkedDecoder();
                }
                chunked.start(headRel);
            }
        }
        int headEnd = pos + headRel;
        switch (bodyKind) {
            case NONE:
                return complete(headEnd, 0, headEnd);
            case LENGTH: {
                long need = headEnd - pos + contentLength;
                if (end - pos < need) {
                    return NEED_MORE;
                }
                return complete(headEnd, (int) contentLength, headEnd + (int) contentLength);
            }
            case CHUNKED: {
                int r = chunked.decode(b, pos, end, maxBodySize, maxHeadSize);
                if (r == ChunkedDecoder.NEED_MORE) {
                    return NEED_MORE;
                }
                if (r < 0) {
                    return fail(-r == 413 ? "body larger than " + maxBodySize + " bytes" : "malformed chunked body (" + -r + ")");
                }
                return complete(pos + chunked.bodyStartRel(), chunked.decodedLength(), pos + r);
            }
            default:
                if (end - headEnd > maxBodySize) {
                    return fail("body larger than " + maxBodySize + " bytes");
                }
                return NEED_MORE; // until the connection closes
        }
    }

    /**
     * Reads only the head of the response at {@code pos}, for a caller that takes the body itself as it
     * arrives (a streamed body): no body size limit applies. Interim responses are reported as by
     * {@link #read}. After it, {@link #bodyFraming()} and {@link #contentLength()} say how the body is
     * framed.
     *
     * @return the index after the final head, {@link #NEED_MORE}, {@link #ERROR} or {@link #INTERIM}
     */
    public int readHead(ByteBuffer b, int pos, int end) {
        streaming = true;
        try {
            return status == 0 ? finalHead(b, pos, end) : pos + headRel;
        } finally {
            streaming = false;
        }
    }

    /** The final head's end, INTERIM for a 1xx, NEED_MORE or ERROR; frames the body. */
    private int finalHead(ByteBuffer b, int pos, int end) {
        int r = head(b, pos, end);
        if (r < 0) {
            return r;
        }
        if (status == 101) {
            // RFC 9110 §15.2.2: only an answer to an Upgrade request, which this reader's callers
            // do not send; what follows it is another protocol, not a response to read on.
            return fail("unexpected 101 Switching Protocols: no upgrade was requested");
        }
        if (status < 200) {
            interim++; // RFC 9110 §15.2: a client must take any number of 1xx before the final response
            interimStatus = status;
            status = 0;
            interimEnd = r;
            return INTERIM;
        }
        headRel = r - pos;
        return frame() ? r : ERROR;
    }

    /** {@link #BODY_NONE}, {@link #BODY_LENGTH}, {@link #BODY_CHUNKED} or {@link #BODY_UNTIL_CLOSE}, once the head is read. */
    public int bodyFraming() {
        return bodyKind;
    }

    /** The Content-Length of the response, meaningful when {@link #bodyFraming()} is {@link #BODY_LENGTH}. */
    public long contentLength() {
        return contentLength;
    }

    private boolean streaming;
    private int interimEnd;
    private int interimStatus;
    /** Bytes of the final head, from the response's first byte. */
    private int headRel;

    /** Where the interim response {@link #read} reported ends (absolute index). */
    public int interimEnd() {
        return interimEnd;
    }

    /** The status of the last interim response (100, 103...). */
    public int interimStatus() {
        return interimStatus;
    }

    /**
     * The server closed the connection: a body read until close is complete ({@code [headEnd, end)});
     * anything else is cut short.
     *
     * @return the message end, or {@link #ERROR}
     */
    public int atEndOfInput(ByteBuffer b, int pos, int end) {
        if (status != 0 && bodyKind == UNTIL_CLOSE) {
            return complete(pos + headRel, end - pos - headRel, end);
        }
        return fail(status == 0 ? (end > pos ? "connection closed in the middle of the response head"
                : "connection closed before the response") : "connection closed in the middle of the body");
    }

    private int complete(int start, int length, int messageEnd) {
        bodyStart = start;
        bodyLength = length;
        return messageEnd;
    }

    private int fail(String why) {
        error = why;
        return ERROR;
    }

    /** Parses one head at {@code pos}; returns its end, NEED_MORE or ERROR. */
    private int head(ByteBuffer b, int pos, int end) {
        int lineEnd = findCrlf(b, pos, end);
        if (lineEnd == -2) {
            return fail("malformed status line: a line ended by a bare LF");
        }
        if (lineEnd < 0) {
            if (end - pos > MAX_STATUS_LINE) {
                return fail("status line longer than " + MAX_STATUS_LINE + " bytes");
            }
            return end - pos > 0 && !plausibleStart(b, pos, end) ? fail("malformed status line") : NEED_MORE;
        }
        // Judge a whole status line at once, head complete or not: a peer that is not an HTTP server
        // ("SSH-2.0-...\r\n", then silence) is refused now, not after the read timeout, and the
        // verdict does not depend on where the bytes were split.
        if (!statusLine(b, pos, lineEnd)) {
            return ERROR;
        }
        int statusSeen = status;
        status = 0; // status != 0 means "head parsed": only once the head is whole
        int headLimit = pos + maxHeadSize;
        int crlfcrlf = -1;
        for (int i = lineEnd; i + 3 < end; i++) {
            if (b.get(i) == '\r' && b.get(i + 1) == '\n' && b.get(i + 2) == '\r' && b.get(i + 3) == '\n') {
                crlfcrlf = i;
                break;
            }
            if (b.get(i + 1) == '\n' && b.get(i) != '\r') {
                // Refused when seen, as the request parser does: waiting for a CRLFCRLF that a peer
                // ending its lines with LF alone never sends would last until the read timeout.
                return fail("malformed header field: a line ended by a bare LF");
            }
            if (i > headLimit) {
                return fail("response head larger than " + maxHeadSize + " bytes");
            }
        }
        if (crlfcrlf < 0) {
            return end - pos > maxHeadSize ? fail("response head larger than " + maxHeadSize + " bytes") : NEED_MORE;
        }
        status = statusSeen;
        fields.clear();
        int p = lineEnd + 2;
        while (p < crlfcrlf + 2) {
            int e = findCrlf(b, p, crlfcrlf + 2);
            if (e < 0) {
                return fail("malformed header field: a line ended by a bare LF or CR");
            }
            if (!field(b, p, e)) {
                return ERROR;
            }
            p = e + 2;
        }
        return crlfcrlf + 4;
    }

    /** A constant, not a literal in the method: that would be a new array for every response read. */
    private static final byte[] HTTP_1_PREFIX = {'H', 'T', 'T', 'P', '/', '1', '.'};

    /** Whether the bytes so far could begin {@code HTTP/1.x}. */
    private static boolean plausibleStart(ByteBuffer b, int pos, int end) {
        for (int i = 0; i < HTTP_1_PREFIX.length && pos + i < end; i++) {
            if (b.get(pos + i) != HTTP_1_PREFIX[i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code HTTP/1.x SP 3DIGIT [SP reason]} (RFC 9112 §4; a missing SP before an empty reason is tolerated). */
    private boolean statusLine(ByteBuffer b, int pos, int lineEnd) {
        int length = lineEnd - pos;
        if (length < 12 || !plausibleStart(b, pos, pos + 7) || (b.get(pos + 7) != '1' && b.get(pos + 7) != '0')
                || b.get(pos + 8) != ' ') {
            fail("malformed status line: " + ResponseFieldsBefore.printable(b, pos, lineEnd));
            return false;
        }
        int code = 0;
        for (int i = pos + 9; i < pos + 12; i++) {
            int d = b.get(i) - '0';
            if (d < 0 || d > 9) {
                fail("malformed status code: " + ResponseFieldsBefore.printable(b, pos, lineEnd));
                return false;
            }
            code = code * 10 + d;
        }
        if (length > 12 && b.get(pos + 12) != ' ') {
            fail("malformed status line: " + ResponseFieldsBefore.printable(b, pos, lineEnd));
            return false;
        }
        status = code;
        if (status < 100) {
            fail("status code below 100: " + status);
            return false;
        }
        for (int i = pos + 13; i < lineEnd; i++) {
            int c = b.get(i) & 0xFF;
            if (c != '\t' && (c < 0x20 || c == 0x7F)) {
                fail("control character in the reason phrase");
                return false;
            }
        }
        reason = length > 13 ? ResponseFieldsBefore.text(b, pos + 13, lineEnd, reason) : "";
        return true;
    }

    /** {@code token ":" OWS value OWS} (RFC 9112 §5); no whitespace before the colon, no obs-fold. */
    private boolean field(ByteBuffer b, int p, int e) {
        int colon = -1;
        for (int i = p; i < e; i++) {
            int c = b.get(i) & 0xFF;
            if (c == ':') {
                colon = i;
                break;
            }
            if (!HttpTokens.TCHAR[c]) {
                fail(i == p && (c == ' ' || c == '\t') ? "obsolete line folding in a header field" : "malformed header field name");
                return false;
            }
        }
        if (colon <= p) {
            fail("malformed header field");
            return false;
        }
        int vs = colon + 1;
        int ve = e;
        while (vs < ve && (b.get(vs) == ' ' || b.get(vs) == '\t')) {
            vs++;
        }
        while (ve > vs && (b.get(ve - 1) == ' ' || b.get(ve - 1) == '\t')) {
            ve--;
        }
        for (int i = vs; i < ve; i++) {
            int c = b.get(i) & 0xFF;
            if (!HttpTokens.FIELD_VALUE[c]) {
                fail("invalid byte 0x" + Integer.toHexString(c) + " in a header field value");
                return false;
            }
        }
        fields.add(b, p, colon, vs, ve);
        return true;
    }

    /** Decides how the body is framed (RFC 9112 §6.3). */
    private boolean frame() {
        String te = null;
        String cl = null;
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (n.equalsIgnoreCase("Transfer-Encoding")) {
                te = te == null ? values.get(i) : te + "," + values.get(i);
            } else if (n.equalsIgnoreCase("Content-Length")) {
                if (cl != null && !cl.equals(values.get(i))) {
                    fail("conflicting Content-Length values");
                    return false;
                }
                cl = values.get(i);
            }
        }
        if (headRequest || status == 204 || status == 304) {
            bodyKind = NONE;
            return true;
        }
        if (te != null) {
            if (cl != null) {
                fail("both Transfer-Encoding and Content-Length"); // a smuggling vector: refused
                return false;
            }
            if (ResponseFraming.chunkedBeforeAnother(te)) {
                fail("chunked applied before another transfer coding"); // RFC 9112 §6.1: chunked at most once, last
                return false;
            }
            if (!ResponseFraming.lastCodingIsChunked(te)) {
                bodyKind = UNTIL_CLOSE; // RFC 9112 §6.3 item 4: chunked not final: read until close
                return true;
            }
            bodyKind = CHUNKED;
            return true;
        }
        if (cl != null) {
            long length = ResponseFraming.contentLength(cl);
            if (length == ResponseFraming.CONFLICTING) {
                fail("conflicting Content-Length values");
                return false;
            }
            if (length == ResponseFraming.MALFORMED) {
                fail("malformed Content-Length: " + ResponseFieldsBefore.printable(cl));
                return false;
            }
            contentLength = length;
            if (contentLength > maxBodySize && !streaming) {
                fail("body of " + contentLength + " bytes larger than " + maxBodySize);
                return false;
            }
            bodyKind = LENGTH;
            return true;
        }
        bodyKind = UNTIL_CLOSE;
        return true;
    }

    /**
     * Copies the unread bytes {@code [from, to)} of {@code src} into {@code dst} from 0 (which may be
     * {@code src}), dropping chunk framing already decoded; returns how many it kept.
     */
    public int keep(ByteBuffer src, int from, int to, ByteBuffer dst) {
        if (status != 0 && bodyKind == CHUNKED && chunked.active()) {
            return chunked.compactInto(src, from, to, dst);
        }
        if (src != dst || from != 0) {
            dst.put(0, src, from, to - from);
        }
        return to - from;
    }

    private static int findCrlf(ByteBuffer b, int from, int end) {
        for (int i = from; i + 1 < end; i++) {
            if (b.get(i) == '\r') {
                return b.get(i + 1) == '\n' ? i : -2;
            }
            if (b.get(i) == '\n') {
                return -2;
            }
        }
        return -1;
    }

    public int status() {
        return status;
    }

    public String reason() {
        return reason;
    }

    /** Header names of the final response, in order (a copy is made by the caller that keeps them). */
    public List<String> names() {
        return names;
    }

    public List<String> values() {
        return values;
    }

    /**
     * An unmodifiable copy of {@link #names()} to keep past this reader's next response: the previous
     * copy itself when every name is the same String as then ({@link ResponseFieldsBefore}).
     */
    public List<String> namesCopy() {
        return fields.namesCopy();
    }

    /** Like {@link #namesCopy()}, for {@link #values()}. */
    public List<String> valuesCopy() {
        return fields.valuesCopy();
    }

    /** Where the (decoded) body starts (absolute index, after {@link #read} completed). */
    public int bodyStart() {
        return bodyStart;
    }

    public int bodyLength() {
        return bodyLength;
    }

    /** Interim (1xx) responses skipped before the final one. */
    public int interimResponses() {
        return interim;
    }

    /** What was wrong, after {@link #ERROR}. */
    public String error() {
        return error;
    }
}
