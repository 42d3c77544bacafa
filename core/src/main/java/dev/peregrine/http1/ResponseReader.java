package dev.peregrine.http1;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Reads one HTTP/1.1 response as a client receives it (RFC 9112 §4, §6), as strict as the request
 * parser: the status line, the fields, then the body by {@code Content-Length}, chunked coding
 * ({@link ChunkedDecoder}, extensions and trailers included) or until the connection closes. Interim
 * responses (1xx: {@code 100 Continue}, {@code 103 Early Hints}) are counted and skipped here, the one
 * place that does it: {@link #responseStart()} says where the final response begins, and the bytes
 * before it are consumed. No body follows a response to HEAD, a 1xx, 204 or 304 (RFC 9110 §6.4.1).
 * What it accepts follows RFC 9112 for a user agent: an obs-fold is replaced by SP (§5.2, see
 * {@link ResponseHead}); a transfer coding other than chunked is an error, never a body handed on still
 * coded (§6.1); an HTTP/1.0 response keeps the connection only with {@code keep-alive} (§9.3, see
 * {@link #persistent()}).
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
 * Errors are {@link #ERROR}; {@link #failure()} says which kind (so a caller never matches on the
 * text) and {@link #error()} gives the reason as text, which the client puts in its exception with the
 * host.
 *
 * <p>Thread: the connection's loop thread; one per client connection, reused for every response.
 */
public final class ResponseReader {
    public static final int NEED_MORE = -1;
    /** A response error; {@link #failure()} says which kind and {@link #error()} why. */
    public static final int ERROR = -2;

    /** The kinds of {@link #ERROR}. */
    public enum Failure {
        /** The bytes are not a response this reader accepts (status line, fields, framing, chunks). */
        MALFORMED,
        /** The head or the body is larger than the reader's limit. */
        TOO_LARGE,
        /** The connection ended before the response did. */
        TRUNCATED,
        /** The body is in a transfer coding other than chunked, which the client cannot decode. */
        UNSUPPORTED_CODING
    }

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
    /** An Upgrade was requested ({@link #expectUpgrade}): a 101 is a final answer. */
    private boolean upgrade;
    private String error;
    private Failure failure;
    /** Where the final response starts: after the interim responses skipped. */
    private int responseStart;

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
        upgrade = false;
        status = 0;
        headRel = 0;
        interim = 0;
        error = null;
        failure = null;
        parser.reset();
        if (chunked != null) {
            chunked.reset();
        }
    }

    /**
     * Prepares for the answer to an {@code Upgrade} request (a WebSocket handshake): a {@code 101}
     * is then the final head, returned by {@link #readHead} with no body framed (what follows it is the
     * new protocol's, RFC 9110 §15.2.2).
     */
    public void expectUpgrade() {
        expect(false);
        upgrade = true;
    }

    /**
     * Reads the response starting at {@code pos} of {@code b} (bytes up to {@code end} are there),
     * skipping interim responses: the final one starts at {@link #responseStart()}, and on
     * {@link #NEED_MORE} the caller keeps the bytes from there and offers them again with more.
     *
     * @return the index after the response, {@link #NEED_MORE} or {@link #ERROR}
     */
    public int read(ByteBuffer b, int pos, int end) {
        responseStart = pos;
        if (status == 0) {
            int r = finalHead(b, end);
            if (r < 0) {
                return r;
            }
            pos = responseStart;
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
                    return -r == 413 ? fail(Failure.TOO_LARGE, "body larger than " + maxBodySize + " bytes")
                            : fail(Failure.MALFORMED, "malformed chunked body (" + -r + ")");
                }
                return complete(pos + chunked.bodyStartRel(), chunked.decodedLength(), pos + r);
            }
            default:
                if (end - headEnd > maxBodySize) {
                    return fail(Failure.TOO_LARGE, "body larger than " + maxBodySize + " bytes");
                }
                return NEED_MORE; // until the connection closes
        }
    }

    /**
     * Reads only the head of the response at {@code pos}, for a caller that takes the body itself as it
     * arrives (a streamed body): no body size limit applies. Interim responses are skipped as by
     * {@link #read} ({@link #responseStart()}). After it, {@link #bodyFraming()} and
     * {@link #contentLength()} say how the body is framed.
     *
     * @return the index after the final head, {@link #NEED_MORE} or {@link #ERROR}
     */
    public int readHead(ByteBuffer b, int pos, int end) {
        responseStart = pos;
        if (status != 0) {
            return pos + headRel;
        }
        streaming = true;
        try {
            return finalHead(b, end);
        } finally {
            streaming = false;
        }
    }

    /**
     * The final head from {@link #responseStart}: its end, NEED_MORE or ERROR; frames the body. Each
     * interim response before it is consumed here (RFC 9110 §15.2: a client takes any number of 1xx
     * before the final response), moving {@link #responseStart} past it.
     */
    private int finalHead(ByteBuffer b, int end) {
        while (true) {
            int r = parser.parse(b, responseStart, end);
            if (r < 0) {
                return r == ERROR ? fail(parser.tooLarge() ? Failure.TOO_LARGE : Failure.MALFORMED, parser.error()) : r;
            }
            status = parser.code();
            if (status == 101 && upgrade) {
                headRel = r - responseStart;
                bodyKind = NONE;
                return r;
            }
            if (status == 101) {
                // RFC 9110 §15.2.2: only an answer to an Upgrade request, which this reader's callers
                // do not send; what follows it is another protocol, not a response to read on.
                return fail(Failure.MALFORMED, "unexpected 101 Switching Protocols: no upgrade was requested");
            }
            if (status >= 200) {
                headRel = r - responseStart;
                return frame() ? r : ERROR;
            }
            interim++;
            status = 0;
            responseStart = r;
            parser.reset(); // the next head starts where the interim one ended
        }
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
    /** Bytes of the final head, from the response's first byte. */
    private int headRel;

    /**
     * Where the final response starts (absolute index), after the last {@link #read} or
     * {@link #readHead}: past any interim responses they skipped. The bytes before it are consumed; on
     * {@link #NEED_MORE} the caller keeps the bytes from here.
     */
    public int responseStart() {
        return responseStart;
    }

    /**
     * Whether the connection may carry another request after this response (RFC 9112 §9.3): not when
     * it has the {@code close} option; an HTTP/1.0 response only with the {@code keep-alive} option.
     * Allocates nothing: it runs for every response.
     */
    public boolean persistent() {
        return ConnectionOptions.persistent(parser.http10(), fields.names, fields.values);
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
        return fail(Failure.TRUNCATED, status == 0 ? (end > pos ? "connection closed in the middle of the response head"
                : "connection closed before the response") : "connection closed in the middle of the body");
    }

    private int complete(int start, int length, int messageEnd) {
        bodyStart = start;
        bodyLength = length;
        return messageEnd;
    }

    private int fail(Failure kind, String why) {
        failure = kind;
        error = why;
        return ERROR;
    }

    /** Decides how the body is framed (RFC 9112 §6.3). */
    private boolean frame() {
        if (parser.conflictingLengths()) {
            fail(Failure.MALFORMED, "conflicting Content-Length values");
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
                fail(Failure.MALFORMED, "both Transfer-Encoding and Content-Length"); // a smuggling vector: refused
                return false;
            }
            if (ResponseFraming.chunkedBeforeAnother(te)) {
                fail(Failure.MALFORMED, "chunked applied before another transfer coding"); // RFC 9112 §6.1: chunked at most once, last
                return false;
            }
            String other = ResponseFraming.otherCoding(te);
            if (other != null) {
                // RFC 9112 §6.1: a coding the client cannot decode; the body must not be handed on as if decoded
                fail(Failure.UNSUPPORTED_CODING, "unsupported transfer coding: " + ResponseFields.printable(other));
                return false;
            }
            if (!ResponseFraming.lastCodingIsChunked(te)) {
                bodyKind = UNTIL_CLOSE; // only empty list elements: no coding at all, read until close
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
                fail(Failure.MALFORMED, "conflicting Content-Length values");
                return false;
            }
            if (length == ResponseFraming.MALFORMED) {
                fail(Failure.MALFORMED, "malformed Content-Length: " + ResponseFields.printable(cl));
                return false;
            }
            contentLength = length;
            if (contentLength > maxBodySize && !streaming) {
                fail(Failure.TOO_LARGE, "body of " + contentLength + " bytes larger than " + maxBodySize);
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

    /** Which kind of error, after {@link #ERROR}. */
    public Failure failure() {
        return failure;
    }

    /** What was wrong, after {@link #ERROR}. */
    public String error() {
        return error;
    }
}
