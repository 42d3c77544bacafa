package dev.peregrine.http1;

import java.nio.ByteBuffer;

/**
 * Finds where each HTTP/1.1 request of a connection begins and ends (RFC 9112 §6): empty lines
 * before it, the head ({@link HeadParser}), then the body by {@code Content-Length} or chunked
 * coding ({@link ChunkedDecoder}). One per connection, because a request may arrive over many
 * reads; the parser it uses is the loop's.
 *
 * <p><b>Restartable.</b> On {@link #NEED_MORE} the caller keeps the bytes from the request's first
 * byte (through {@link #keep}, which drops chunk framing already decoded) and calls {@link #frame}
 * again from that byte once more arrived. What was already learnt is not learnt again: a head
 * arriving in pieces is only searched for its end ({@link HeadParser#findHeadEnd}) until it is
 * whole (and parsed again only when it grows past the request-line or head limit), a chunked body
 * resumes where the decoder stopped, and a Content-Length body is waited for by length
 * ({@link #expectedInput}). So a head is parsed when its first bytes arrive (early answers such as
 * 505), when it is whole, when it crosses a limit, and once more when its body is complete (the
 * request view it fills is the loop's, shared by its connections): a bounded number of times, never
 * once per arrival ({@code RequestFramerTest}).
 * <pre>
 *   frame() --&gt; empty lines (at most MAX_EMPTY_LINES per connection, counted across reads;
 *                             EMPTY_LINES when they are all there is)
 *           --&gt; HEAD: NEED_MORE while incomplete (headScanned remembers how far it was searched)
 *           --&gt; -status for a bad head
 *           --&gt; chunked with offerChunked: LARGE_BODY (the caller streams it, or calls bufferedBody())
 *           --&gt; chunked: decode; NEED_MORE / -status / message end
 *           --&gt; Content-Length above streamThreshold: LARGE_BODY (the caller streams it, or calls
 *               bufferedBody() to go on as below)
 *           --&gt; Content-Length: -413 above maxBody; NEED_MORE until all there; message end
 * </pre>
 * After a message end, {@link #bodyStart()} and {@link #bodyLength()} say where its (decoded) body
 * is, and the request's head has it ({@link RequestHead#setBody}).
 *
 * <p>Thread: the connection's loop thread.
 */
public final class RequestFramer {
    /** More bytes are needed; keep them from the request's first byte. */
    public static final int NEED_MORE = -1;
    /**
     * The head announces a Content-Length body above the stream threshold, or (with {@code offerChunked})
     * a chunked body, nothing of it decoded yet; the caller decides.
     */
    public static final int LARGE_BODY = -2;
    /** Only empty lines so far, all consumed: the caller keeps nothing and stays idle. */
    public static final int EMPTY_LINES = -3;

    private final HeadParser parser;
    private final long maxBody;
    private final int maxHead;
    private final long streamThreshold;
    /** Whether a chunked body is {@link #LARGE_BODY} too (the server's: it may stream to its handler). */
    private final boolean offerChunked;
    /** Bytes, from the request's start, needed before a Content-Length request is complete. */
    private int awaitBytes;
    /** Empty lines (CRLF) consumed since the last request line, across reads (RFC 9112 §2.2 bound). */
    private int emptyLines;
    /** Bytes of an incomplete head already searched for its end. */
    private int headScanned;
    private ChunkedDecoder chunked;
    private int headEnd;
    private int bodyStart;
    private int bodyLength;
    private String[] trailerFields;
    private long parses;

    /**
     * @param parser the loop's head parser
     * @param maxBody largest body kept in memory (413 above)
     * @param maxHead bound for chunk-size lines and trailers, as for the head
     * @param streamThreshold Content-Length above which {@link #LARGE_BODY} is returned
     */
    public RequestFramer(HeadParser parser, long maxBody, int maxHead, long streamThreshold) {
        this(parser, maxBody, maxHead, streamThreshold, false);
    }

    /**
     * @param offerChunked a chunked body is {@link #LARGE_BODY} too, before any of it is decoded (the
     *     caller streams it, or calls {@link #bufferedBody} to gather it)
     */
    public RequestFramer(HeadParser parser, long maxBody, int maxHead, long streamThreshold, boolean offerChunked) {
        this.parser = parser;
        this.maxBody = maxBody;
        this.maxHead = maxHead;
        this.streamThreshold = streamThreshold;
        this.offerChunked = offerChunked;
    }

    /**
     * Frames the request starting at {@code pos} of {@code b} (bytes up to {@code end} are there).
     *
     * @return the index after the message, {@link #NEED_MORE}, {@link #LARGE_BODY}, {@link #EMPTY_LINES}, or
     *         {@code -status} for a request to reject (and close after)
     */
    public int frame(ByteBuffer b, int pos, int end, RequestHead req) {
        if (awaitBytes > 0 && end - pos < awaitBytes) {
            return NEED_MORE;
        }
        if (headScanned == 0 && awaitBytes == 0 && (chunked == null || !chunked.active())) {
            // Empty lines before a request line are ignored (RFC 9112 §2.2), up to the parser's bound
            // counted across reads, so that no split of them changes the answer.
            int first = HeadParser.skipEmptyLines(b, pos, end);
            if (first >= pos) {
                emptyLines += (first - pos) / 2;
                if (emptyLines > HeadParser.MAX_EMPTY_LINES) {
                    return -400;
                }
                if (first == end) {
                    return EMPTY_LINES; // nothing but empty lines so far: none kept, the connection stays idle
                }
                emptyLines = 0; // a request line begins (the parser skips those lines again itself)
            }
        }
        if (chunked != null && chunked.active()) {
            return resumeChunked(b, pos, end, req);
        }
        int have = end - pos;
        if (headScanned > 0 && !crossesLimit(headScanned, have)
                && HeadParser.findHeadEnd(b, pos, pos + headScanned, end) == HeadParser.NEED_MORE) {
            // A head arriving in pieces is only searched for its end until it is there; it is parsed
            // again only when it grows past the request-line or head limit, where the parser's answer
            // (414, 431) would change, so that no split of the input changes the outcome.
            headScanned = have;
            return NEED_MORE;
        }
        parses++;
        int head = parser.parse(b, pos, end, req);
        if (head == HeadParser.NEED_MORE) {
            headScanned = end - pos;
            return NEED_MORE;
        }
        if (head < 0) {
            return head;
        }
        headScanned = 0;
        headEnd = head;
        if (req.isChunked() ? offerChunked : req.contentLength() > streamThreshold && req.contentLength() > 0) {
            return LARGE_BODY;
        }
        return bufferedBody(b, pos, end, req);
    }

    /**
     * Goes on with a body kept in memory, after {@link #LARGE_BODY} when the caller does not stream
     * it: -413 above {@code maxBody} (for a chunked body, once its decoded length passes it), else
     * {@link #NEED_MORE} or the message end.
     */
    public int bufferedBody(ByteBuffer b, int pos, int end, RequestHead req) {
        if (req.isChunked()) {
            if (chunked == null) {
                chunked = new ChunkedDecoder();
            }
            chunked.start(headEnd - pos);
            int r = chunked.decode(b, pos, end, maxBody, maxHead);
            if (r < 0) {
                return r == ChunkedDecoder.NEED_MORE ? NEED_MORE : r;
            }
            return complete(b, pos + chunked.bodyStartRel(), chunked.decodedLength(), pos + r, req, chunked.trailerFields());
        }
        long length = Math.max(0, req.contentLength());
        if (length > maxBody) {
            return -413; // answered from the head, before the body is read
        }
        int need = headEnd - pos + (int) length;
        if (end - pos < need) {
            awaitBytes = need;
            return NEED_MORE;
        }
        return complete(b, headEnd, (int) length, headEnd + (int) length, req, null);
    }

    /**
     * More of a chunked body arrived: only the decoder runs. The head was validated when it arrived;
     * it is parsed once more when the body is complete, because the request view is the loop's and
     * another connection's request may have been in it meanwhile.
     */
    private int resumeChunked(ByteBuffer b, int pos, int end, RequestHead req) {
        int r = chunked.decode(b, pos, end, maxBody, maxHead);
        if (r < 0) {
            return r == ChunkedDecoder.NEED_MORE ? NEED_MORE : r;
        }
        parses++;
        parser.parse(b, pos, end, req);
        return complete(b, pos + chunked.bodyStartRel(), chunked.decodedLength(), pos + r, req, chunked.trailerFields());
    }

    /** Whether a head held at {@code before} bytes and now at {@code now} crossed the request-line or head limit. */
    private boolean crossesLimit(int before, int now) {
        int line = parser.maxRequestLine();
        int head = parser.maxHeadSize();
        return (before <= line && now > line) || (before <= head && now > head);
    }

    /** Full parses of heads so far (a test's measure of "no re-parsing"). */
    public long parses() {
        return parses;
    }

    private int complete(ByteBuffer b, int start, int length, int messageEnd, RequestHead req, String[] trailers) {
        awaitBytes = 0;
        trailerFields = trailers;
        bodyStart = start;
        bodyLength = length;
        req.setBody(b, start, length);
        return messageEnd;
    }

    /**
     * The peer ended its input with an incomplete head held ({@link #inHead()}), which so far was only
     * searched for its end: parses it once, so that an invalid head gets the answer (400, 414,
     * 431...) it would have had in one piece and no split of the input changes the outcome. Returns
     * {@code -status}, or {@link #NEED_MORE} when what arrived is a valid beginning.
     */
    public int atEndOfInput(ByteBuffer b, int pos, int end, RequestHead req) {
        int r = parser.parse(b, pos, end, req);
        headScanned = 0;
        return r >= 0 ? NEED_MORE : r;
    }

    /** Whether a head is whole and its body is still to come (the moment for {@code 100 Continue}). */
    public boolean awaitingBody() {
        return awaitBytes > 0 || (chunked != null && chunked.active());
    }

    /** Whether part of a head has arrived and its end has not. */
    public boolean inHead() {
        return headScanned > 0;
    }

    /** Where the head of the last framed request ends (absolute index). */
    public int headEnd() {
        return headEnd;
    }

    /** Where the body of the last complete request starts (absolute index; decoded for chunked). */
    public int bodyStart() {
        return bodyStart;
    }

    public int bodyLength() {
        return bodyLength;
    }

    /**
     * The trailer fields of the last complete request (chunked only: {@link ChunkedDecoder#trailerFields}),
     * name and value alternating, or null when it had none.
     */
    public String[] trailerFields() {
        return trailerFields;
    }

    /** How many bytes the request being received is expected to reach (0 when unknown). */
    public int expectedInput() {
        return awaitBytes;
    }

    /**
     * Copies the unframed bytes {@code [from, to)} of {@code src} into {@code dst} from index 0 (which
     * may be {@code src}), dropping chunk framing already decoded; returns how many it kept.
     */
    public int keep(ByteBuffer src, int from, int to, ByteBuffer dst) {
        if (chunked != null && chunked.active()) {
            return chunked.compactInto(src, from, to, dst);
        }
        if (src != dst || from != 0) {
            dst.put(0, src, from, to - from);
        }
        return to - from;
    }

    /** All input so far was consumed: nothing is half-framed. */
    public void consumedAll() {
        awaitBytes = 0;
        headScanned = 0;
    }

    /** Forgets the request being received (answered early, timed out, or the connection closed). */
    public void reset() {
        awaitBytes = 0;
        headScanned = 0;
        emptyLines = 0;
        trailerFields = null;
        if (chunked != null) {
            chunked.reset();
        }
    }
}
