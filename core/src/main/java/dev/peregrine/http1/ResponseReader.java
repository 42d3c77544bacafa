package dev.peregrine.http1;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Reads one HTTP/1.1 response as a client receives it (RFC 9112 §4, §6), as strict as the request
 * parser: the status line, the fields, then the body by {@code Content-Length}, chunked coding
 * ({@link ChunkedDecoder}, extensions and trailers included) or until the connection closes. Interim
 * responses (1xx: {@code 100 Continue}, {@code 103 Early Hints}) are counted and skipped. No body
 * follows a response to HEAD, a 1xx, 204 or 304 (RFC 9110 §6.4.1).
 *
 * <p><b>Restartable,</b> like {@link RequestFramer}: on {@link #NEED_MORE} the caller keeps the bytes
 * from the response's first byte (with {@link #keep}, which drops chunk framing already decoded) and
 * calls {@link #read} again from there with more. Nothing is parsed twice: the head
 * ({@link ResponseHead}, one pass, a word at a time) and a chunked body ({@link ChunkedDecoder}) both
 * resume where the last call stopped, their positions kept relative to the response's first byte.
 * <pre>
 *   read() --&gt; interim 1xx heads skipped (counted) --&gt; HEAD: NEED_MORE until CRLF CRLF, bad -&gt; error
 *          (judged byte by byte as it arrives, so a peer that is not an HTTP server is refused at
 *          its first wrong byte, without waiting)
 *          --&gt; no body (HEAD request, 204, 304) | Content-Length | chunked | until close
 *          --&gt; NEED_MORE while the body is incomplete; the message end when complete
 *   atEndOfInput() --&gt; a body read until close is complete; anything else incomplete is an error
 * </pre>
 * Errors are {@link #ERROR}; {@link #error()} gives the reason as text, which the client
 * puts in its exception with the host.
 *
 * <p>Thread: the connection's loop thread; one per client connection, reused for every response.
 */
public final class ResponseReader {
    public static final int NEED_MORE = -1;
    /** A response error; {@link #error()} says which. */
    public static final int ERROR = -2;
    /** An interim (1xx) response ended at {@link #interimEnd()}: consume it and read on from there. */
    public static final int INTERIM = -3;

    private final int maxHeadSize;
    private final long maxBodySize;
    private final ResponseHead parser;
    private final ResponseFields fields;
    private ChunkedDecoder chunked;
    private boolean headRequest;
    private int status;
    private long contentLength;
    /** The last Content-Length value parsed, and what it gave. */
    private String lengthText;
    private long lengthValue;
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

    public ResponseReader(int maxHeadSize, long maxBodySize) {
        this.maxHeadSize = maxHeadSize;
        this.maxBodySize = maxBodySize;
        this.parser = new ResponseHead(maxHeadSize);
        this.fields = parser.fields;
    }

    /** Prepares for the response to a new request; {@code head} when that request is HEAD. */
    public void expect(boolean head) {
        headRequest = head;
        status = 0;
        headRel = 0;
        interim = 0;
        error = null;
        parser.reset();
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
        int r = parser.parse(b, pos, end);
        if (r < 0) {
            return r == ERROR ? fail(parser.error()) : r;
        }
        status = parser.code();
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
            parser.reset(); // the next head starts at interimEnd
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

    /** Decides how the body is framed (RFC 9112 §6.3). */
    private boolean frame() {
        if (parser.conflictingLengths()) {
            fail("conflicting Content-Length values");
            return false;
        }
        String te = parser.transferEncoding();
        String cl = parser.contentLength();
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
            if (cl != lengthText) { // the same String as last time when the bytes repeated (ResponseFields)
                lengthValue = ResponseFraming.contentLength(cl);
                lengthText = cl;
            }
            long length = lengthValue;
            if (length == ResponseFraming.CONFLICTING) {
                fail("conflicting Content-Length values");
                return false;
            }
            if (length == ResponseFraming.MALFORMED) {
                fail("malformed Content-Length: " + ResponseFields.printable(cl));
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

    public int status() {
        return status;
    }

    public String reason() {
        return parser.reason();
    }

    /** Header names of the final response, in order (a copy is made by the caller that keeps them). */
    public List<String> names() {
        return fields.names;
    }

    public List<String> values() {
        return fields.values;
    }

    /**
     * An unmodifiable copy of {@link #names()} to keep past this reader's next response: the previous
     * copy itself when every name is the same String as then ({@link ResponseFields}).
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
