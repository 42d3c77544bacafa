package dev.peregrine.http1;

import java.nio.ByteBuffer;

/**
 * What the codec records of one request: offsets into the buffer that holds it (request line and
 * header fields) and the framing its fields declare. {@link HeadParser} and {@link FramingFields} fill
 * it from an HTTP/1.1 head, {@link RequestFields} from fields HTTP/2 decoded, {@link RequestFramer}
 * hands it the body's place ({@link #setBody}). Nothing is copied: every name, value and the target
 * stay in {@link #buf}.
 *
 * <pre>
 *  buf: GET /users/42?x=1 HTTP/1.1\r\nHost: a\r\n ... \r\n\r\n[body]
 *       ^   ^        ^ ^                ^    ^                ^
 *       |   pathStart| queryStart       |    valueStart(0)     (setBody)
 *       methodStart  pathEnd            nameStart(0)
 * </pre>
 *
 * <p>The field lines' offsets are one array, {@link #FIELD_INTS} ints per line, adjacent, so the
 * parser's loop stores a line into one array (one base, one bounds check, one cache line):
 * <pre>
 *  fieldOffsets: [ nameStart nameEnd valueStart valueEnd | nameStart nameEnd valueStart valueEnd | ...
 *  index           4i+0      4i+1    4i+2       4i+3       (line i, i &lt; headerCount)
 *  constant        NAME_START NAME_END VALUE_START VALUE_END, i * FIELD_INTS the line's base
 * </pre>
 * Name and value are bytes {@code [nameStart, nameEnd)} and {@code [valueStart, valueEnd)} of
 * {@link #buf}. Readers outside this package go through {@link #nameStart(int)} and its siblings.
 *
 * <p>Why a superclass and not a view: the request view the handler reads ({@code exchange.RequestView})
 * extends this class, so the parser writes plain fields with no call in between (as fast as when it
 * wrote the view's own fields), and this package names no view (issue 22: the codec names nothing of
 * the exchange). Fields are protected: the codec here writes them; the view reads its own.
 *
 * <p>Thread: the owning event loop (or the thread a copy was handed to).
 */
public abstract class RequestHead {
    protected ByteBuffer buf;
    /** The method's id ({@link Methods}), {@link Methods#OTHER} for an extension method. */
    protected int method;
    protected int methodStart;
    protected int methodEnd;
    protected int pathStart;
    protected int pathEnd;
    /** Index after '?', or -1 when the target has no query. */
    protected int queryStart;
    protected int targetEnd;
    /** 10 for HTTP/1.0, 11 for HTTP/1.1, 20 for HTTP/2 ({@link RequestFields}). */
    protected int version;
    protected boolean asteriskForm;
    /** An absolute-form target with an empty path, which means "/" (RFC 9112 §3.2.2). */
    protected boolean absolutePathEmpty;
    /** The absolute-form target's authority {@code [authorityStart, authorityEnd)}; -1 for other forms. */
    protected int authorityStart = -1;
    protected int authorityEnd;

    /** Ints per field line in {@link #fieldOffsets}. */
    protected static final int FIELD_INTS = 4;
    /** Where each offset sits in a line's {@link #FIELD_INTS} ints (see the class doc's layout). */
    protected static final int NAME_START = 0;
    protected static final int NAME_END = 1;
    protected static final int VALUE_START = 2;
    protected static final int VALUE_END = 3;

    /** The field lines' offsets, {@link #FIELD_INTS} per line: the layout is in the class doc. */
    protected final int[] fieldOffsets;
    protected int headerCount;

    /** Content-Length, or -1 when absent. */
    protected long contentLength;
    protected boolean chunked;
    protected boolean expectContinue;
    protected boolean connectionClose;
    protected boolean connectionKeepAlive;
    /**
     * The {@code upgrade} option is in {@code Connection} (RFC 9110 §7.8: an {@code Upgrade} field is
     * acted on only with it), so the server consults its upgrade protocols for this request alone.
     */
    protected boolean connectionUpgrade;

    /** @param maxHeaders the most header fields a request may carry */
    protected RequestHead(int maxHeaders) {
        fieldOffsets = new int[maxHeaders * FIELD_INTS];
    }

    /**
     * Clears the head before the parser fills it for the request at {@code buf}; a subclass clears
     * what it holds besides and calls this.
     */
    protected void reset(ByteBuffer buf) {
        this.buf = buf;
        headerCount = 0;
        queryStart = -1;
        authorityStart = -1;
        contentLength = -1;
        chunked = false;
        expectContinue = false;
        connectionClose = false;
        connectionKeepAlive = false;
        connectionUpgrade = false;
        asteriskForm = false;
        absolutePathEmpty = false;
    }

    /** Sets the body to bytes {@code [start, start+length)} of {@code b} (the framer found them). */
    public abstract void setBody(ByteBuffer b, int start, int length);

    public final boolean isChunked() {
        return chunked;
    }

    /** The declared Content-Length, or -1. */
    public final long contentLength() {
        return contentLength;
    }

    /** Whether a {@code Connection} field lists the {@code upgrade} option (any case, any line of it). */
    public final boolean connectionUpgrade() {
        return connectionUpgrade;
    }

    /** The buffer the offsets point into. */
    public final ByteBuffer headBuffer() {
        return buf;
    }

    /** The number of header fields recorded (no liveness check: for the codec and the exchange's helpers). */
    public final int fieldCount() {
        return headerCount;
    }

    /** The most field lines this head holds. */
    public final int fieldCapacity() {
        return fieldOffsets.length / FIELD_INTS;
    }

    /** Field line {@code i}'s name starts here in {@link #headBuffer()}. */
    public final int nameStart(int i) {
        return fieldOffsets[i * FIELD_INTS + NAME_START];
    }

    /** Index just past field line {@code i}'s name. */
    public final int nameEnd(int i) {
        return fieldOffsets[i * FIELD_INTS + NAME_END];
    }

    /** Field line {@code i}'s value starts here (leading OWS excluded). */
    public final int valueStart(int i) {
        return fieldOffsets[i * FIELD_INTS + VALUE_START];
    }

    /** Index just past field line {@code i}'s value (trailing OWS excluded). */
    public final int valueEnd(int i) {
        return fieldOffsets[i * FIELD_INTS + VALUE_END];
    }

    /**
     * Records field line {@code headerCount} and counts it; the caller checked the capacity. The parser's
     * field loop calls it once a line (C2 inlines it). The highest index is stored first: 1-2% faster than
     * the other order on JDK 17 (same-JVM pairs), the same on 25.
     */
    protected final void addField(int nameStart, int nameEnd, int valueStart, int valueEnd) {
        int i = headerCount;
        int[] f = fieldOffsets;
        int j = i * FIELD_INTS;
        f[j + VALUE_END] = valueEnd;
        f[j + VALUE_START] = valueStart;
        f[j + NAME_END] = nameEnd;
        f[j + NAME_START] = nameStart;
        headerCount = i + 1;
    }

    /** Whether the target was absolute-form with an empty path (the path is "/", in no buffer). */
    public final boolean isAbsolutePathEmpty() {
        return absolutePathEmpty;
    }

    /**
     * The request's first byte: the method's in an HTTP/1.1 head; in HTTP/2's decoded fields
     * ({@code h2.RequestHeaders}), whichever field came first, as pseudo-fields may come in any order
     * (RFC 9113 §8.3) and the method need not lead.
     */
    public final int firstByte() {
        int from = methodStart;
        if (version != 20) {
            return from;
        }
        from = Math.min(from, pathStart);
        if (authorityStart >= 0) {
            from = Math.min(from, authorityStart);
        }
        for (int i = 0; i < headerCount; i++) {
            from = Math.min(from, fieldOffsets[i * FIELD_INTS + NAME_START]);
        }
        return from;
    }

    /**
     * Makes this head {@code r}'s, every offset moved by {@code shift} and pointing into {@code dst}
     * (where the caller copied {@code r}'s bytes). This head must hold at least {@code r}'s number of
     * fields; it may be {@code r} itself (each field is read before it is written).
     */
    public final void copyHead(RequestHead r, ByteBuffer dst, int shift) {
        buf = dst;
        method = r.method;
        methodStart = r.methodStart + shift;
        methodEnd = r.methodEnd + shift;
        pathStart = r.pathStart + shift;
        pathEnd = r.pathEnd + shift;
        queryStart = r.queryStart < 0 ? -1 : r.queryStart + shift;
        authorityStart = r.authorityStart < 0 ? -1 : r.authorityStart + shift;
        authorityEnd = r.authorityEnd + shift;
        targetEnd = r.targetEnd + shift;
        version = r.version;
        asteriskForm = r.asteriskForm;
        absolutePathEmpty = r.absolutePathEmpty;
        int[] from = r.fieldOffsets;
        int[] to = fieldOffsets;
        for (int j = 0, n = r.headerCount * FIELD_INTS; j < n; j++) {
            to[j] = from[j] + shift; // every offset of every line moves alike
        }
        headerCount = r.headerCount;
        contentLength = r.contentLength;
        chunked = r.chunked;
        expectContinue = r.expectContinue;
        connectionClose = r.connectionClose;
        connectionKeepAlive = r.connectionKeepAlive;
        connectionUpgrade = r.connectionUpgrade;
    }
}
