package dev.peregrine.http1;

import dev.peregrine.BodyListener;
import dev.peregrine.Request;
import dev.peregrine.buffer.Ascii;
import dev.peregrine.buffer.AsciiView;
import dev.peregrine.cookie.CookieCursor;
import dev.peregrine.form.FormCursor;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The loop's one {@link Request}: a flyweight over offsets that {@link HeadParser} records into the
 * buffer holding the request. Re-pointed for every request; see {@link Request} for how long its views
 * stay valid.
 *
 * <pre>
 *  buf: GET /users/42?x=1 HTTP/1.1\r\nHost: a\r\n ... \r\n\r\n[body]
 *       ^   ^        ^ ^                ^    ^                ^
 *       |   pathStart| queryStart       |    valueStart[0]     bodyStart
 *       start        pathEnd            nameStart[0]
 * </pre>
 *
 * <p>Thread: the owning event loop.
 */
public final class RequestView implements Request {
    private static final ByteBuffer ROOT_PATH =
            ByteBuffer.allocateDirect(1).order(ByteOrder.LITTLE_ENDIAN).put(0, (byte) '/');

    ByteBuffer buf;
    int method;
    int methodStart;
    int methodEnd;
    int pathStart;
    int pathEnd;
    /** Index after '?', or -1 when the target has no query. */
    int queryStart;
    int targetEnd;
    /** 10 for HTTP/1.0, 11 for HTTP/1.1. */
    int version;
    boolean asteriskForm;
    boolean absolutePathEmpty;
    /** The absolute-form target's authority {@code [authorityStart, authorityEnd)}; -1 for other forms. */
    int authorityStart = -1;
    /** The matched route's number ({@code Router.routePattern}), -1 when the router answered itself. */
    private int routeId = -1;
    int authorityEnd;

    final int[] nameStart;
    final int[] nameEnd;
    final int[] valueStart;
    final int[] valueEnd;
    int headerCount;

    /** Content-Length, or -1 when absent. */
    long contentLength;
    boolean chunked;
    boolean expectContinue;
    boolean connectionClose;
    boolean connectionKeepAlive;

    private ByteBuffer bodyBuf;
    private int bodyStart;
    private int bodyLength;

    private final AsciiView pathView = new AsciiView();
    private final RequestCursors cursors = new RequestCursors();
    private final AsciiView[] nameViews;
    private final AsciiView[] valueViews;

    private String[] paramNames;
    private final int[] paramStart = new int[16];
    private final int[] paramEnd = new int[16];
    private int paramCount;

    private ByteBuffer readOnlySource;
    private ByteBuffer readOnlyView;
    private final ByteBuffer emptyBody = ByteBuffer.allocate(0).asReadOnlyBuffer();
    private InetSocketAddress remoteAddress;
    /** {@link #requestId()}: set per request only while request ids are on. */
    private String requestId;
    /** {@link System#nanoTime()} when the request was dispatched; set only while the access log is on. */
    private long startNanos;
    /** The body as it arrives, when it is streamed to an off-loop handler; null otherwise. */
    private InputStream incomingBody;
    /** Set while code that runs after the handler returned (a body producer) could reach this view. */
    private boolean expired;
    /** Set while an inline streaming handler runs for a streamed body; see {@link #takeBodyListener}. */
    private boolean listenerExpected;
    private BodyListener bodyListener;

    /** @param maxHeaders the most header fields a request may carry */
    public RequestView(int maxHeaders) {
        nameStart = new int[maxHeaders];
        nameEnd = new int[maxHeaders];
        valueStart = new int[maxHeaders];
        valueEnd = new int[maxHeaders];
        nameViews = new AsciiView[maxHeaders];
        valueViews = new AsciiView[maxHeaders];
        for (int i = 0; i < maxHeaders; i++) {
            nameViews[i] = new AsciiView();
            valueViews[i] = new AsciiView();
        }
    }

    /** Clears everything before the parser fills the view for the request at {@code buf}. */
    void reset(ByteBuffer buf) {
        this.buf = buf;
        headerCount = 0;
        queryStart = -1;
        authorityStart = -1;
        contentLength = -1;
        chunked = false;
        expectContinue = false;
        connectionClose = false;
        connectionKeepAlive = false;
        asteriskForm = false;
        absolutePathEmpty = false;
        paramCount = 0;
        bodyBuf = null;
        bodyLength = 0;
    }

    /** Sets the body to bytes {@code [start, start+length)} of {@code b}. */
    public void setBody(ByteBuffer b, int start, int length) {
        bodyBuf = b;
        bodyStart = start;
        bodyLength = length;
    }

    /**
     * Sets the request's id and the time it was dispatched ({@link System#nanoTime()}); only called
     * while request ids or the access log are on.
     */
    public void setTrace(String id, long startNanos) {
        this.requestId = id;
        this.startNanos = startNanos;
    }

    @Override
    public String requestId() {
        return requestId;
    }

    /** When the request was dispatched ({@link System#nanoTime()}), if the access log is on. */
    public long startNanos() {
        return startNanos;
    }

    /** Sets the peer's address for this request. */
    public void setRemoteAddress(InetSocketAddress address) {
        remoteAddress = address;
    }

    /** Records the route's path parameters: names and their {@code [start, end)} in the path's buffer. */
    /** Set by the router: the matched route's number, or -1. Thread: the loop. */
    public void setRouteId(int id) {
        routeId = id;
    }

    /** The matched route's number ({@code Router.routePattern(int)}), or -1 when the router answered itself. */
    public int routeId() {
        return routeId;
    }

    public void setPathParams(String[] names, int[] starts, int[] ends, int count) {
        paramNames = names;
        System.arraycopy(starts, 0, paramStart, 0, count);
        System.arraycopy(ends, 0, paramEnd, 0, count);
        paramCount = count;
    }

    /** The method id ({@link Methods}). */
    public int methodId() {
        return method;
    }

    /** 10 or 11. */
    public int versionNumber() {
        return version;
    }

    /** Whether the target was {@code *} (OPTIONS only). */
    public boolean isAsteriskForm() {
        return asteriskForm;
    }

    public boolean isChunked() {
        return chunked;
    }

    public long contentLength() {
        return contentLength;
    }

    public boolean expectsContinue() {
        return expectContinue;
    }

    /** The buffer holding the path bytes, for allocation-free routing. */
    public ByteBuffer pathBuffer() {
        return absolutePathEmpty ? ROOT_PATH : buf;
    }

    public int pathStartIndex() {
        return absolutePathEmpty ? 0 : pathStart;
    }

    public int pathEndIndex() {
        return absolutePathEmpty ? 1 : pathEnd;
    }

    @Override
    public String method() {
        checkLive();
        return method >= 0 ? Methods.name(method) : RequestText.ascii(buf, methodStart, methodEnd);
    }

    @Override
    public String path() {
        checkLive();
        return pathView().toString();
    }

    @Override
    public CharSequence pathView() {
        checkLive();
        return pathView.set(pathBuffer(), pathStartIndex(), pathEndIndex());
    }

    @Override
    public String query() {
        checkLive();
        return queryStart < 0 ? null : RequestText.ascii(buf, queryStart, targetEnd);
    }

    @Override
    public String queryParam(String name) {
        checkLive();
        return queryStart < 0 ? null : cursors.lookup(buf, queryStart, targetEnd).first(name);
    }

    @Override
    public java.util.List<String> queryParams(String name) {
        checkLive();
        return cursors.lookup(buf, queryStart, targetEnd).all(name);
    }

    @Override
    public java.util.Map<String, java.util.List<String>> queryParams() {
        checkLive();
        return cursors.lookup(buf, queryStart, targetEnd).toMap();
    }

    @Override
    public String pathParam(String name) {
        checkLive();
        for (int i = 0; i < paramCount; i++) {
            if (paramNames[i].equals(name)) {
                return RequestText.percentDecoded(pathBuffer(), paramStart[i], paramEnd[i]);
            }
        }
        return null;
    }

    @Override
    public String host() {
        checkLive();
        if (authorityStart >= 0) {
            return RequestText.ascii(buf, authorityStart, authorityEnd); // RFC 9112 §3.2.2: the target's, not Host
        }
        return header("Host");
    }

    @Override
    public String version() {
        checkLive();
        return version == 10 ? "HTTP/1.0" : "HTTP/1.1";
    }

    private int indexOf(String name) {
        int n = name.length();
        for (int i = 0; i < headerCount; i++) {
            if (nameEnd[i] - nameStart[i] == n && Ascii.equalsIgnoreCase(buf, nameStart[i], nameEnd[i], name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String header(String name) {
        checkLive();
        int i = indexOf(name);
        return i < 0 ? null : RequestText.ascii(buf, valueStart[i], valueEnd[i]);
    }

    @Override
    public CharSequence headerView(String name) {
        checkLive();
        int i = indexOf(name);
        return i < 0 ? null : headerValue(i);
    }

    @Override
    public boolean hasHeader(String name) {
        checkLive();
        return indexOf(name) >= 0;
    }

    @Override
    public int headerCount() {
        checkLive();
        return headerCount;
    }

    @Override
    public CharSequence headerName(int index) {
        checkLive();
        checkHeader(index);
        return nameViews[index].set(buf, nameStart[index], nameEnd[index]);
    }

    @Override
    public CharSequence headerValue(int index) {
        checkLive();
        checkHeader(index);
        return valueViews[index].set(buf, valueStart[index], valueEnd[index]);
    }

    private void checkHeader(int index) {
        if (index < 0 || index >= headerCount) {
            throw new IndexOutOfBoundsException(index);
        }
    }

    /**
     * Refuses in-memory access to a body that is streamed: its bytes are not in memory, and an empty
     * answer would be a quietly wrong one.
     */
    private void requireBodyInMemory() {
        if (incomingBody != null || listenerExpected) {
            throw new IllegalStateException("the request body is streamed to this handler (larger than"
                    + " streamBodyThreshold): read it with req.bodyStream()"
                    + (listenerExpected ? " or req.onBody(listener)" : "")
                    + ", not body(), bodyBytes(), bodyString() or bodyLength()");
        }
    }

    @Override
    public ByteBuffer body() {
        checkLive();
        requireBodyInMemory();
        if (bodyLength == 0) {
            return emptyBody;
        }
        if (readOnlySource != bodyBuf) {
            readOnlySource = bodyBuf;
            readOnlyView = bodyBuf.asReadOnlyBuffer();
        }
        readOnlyView.limit(bodyStart + bodyLength).position(bodyStart);
        return readOnlyView;
    }

    @Override
    public int bodyLength() {
        checkLive();
        requireBodyInMemory();
        return bodyLength;
    }

    @Override
    public byte[] bodyBytes() {
        checkLive();
        requireBodyInMemory();
        byte[] b = new byte[bodyLength];
        if (bodyLength > 0) {
            bodyBuf.get(bodyStart, b);
        }
        return b;
    }

    @Override
    public String bodyString() {
        return new String(bodyBytes(), StandardCharsets.UTF_8);
    }

    @Override
    public boolean keepAlive() {
        checkLive();
        return version >= 11 ? !connectionClose : connectionKeepAlive && !connectionClose;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        checkLive();
        return remoteAddress;
    }

    /** The index of the first body byte, which is also where the head ends. */
    public int bodyStartIndex() {
        return bodyStart;
    }

    /** Makes the body a stream that delivers it as it arrives (see {@link Request#bodyStream()}). */
    public void setIncomingBody(InputStream body) {
        incomingBody = body;
    }

    @Override
    public boolean bodyStreamed() {
        checkLive();
        return incomingBody != null || listenerExpected;
    }

    @Override
    public InputStream bodyStream() {
        checkLive();
        if (listenerExpected) {
            throw new IllegalStateException("the body is streamed to the loop: use onBody(listener)");
        }
        return incomingBody != null ? incomingBody : new BodyInputStream(body());
    }

    /** Marks the body as streamed to the inline handler about to run (a {@code Handlers.streaming} one). */
    public void expectListener() {
        listenerExpected = true;
        bodyListener = null;
    }

    /** The listener the streaming handler registered (or null), ending the inline streaming mark. */
    public BodyListener takeBodyListener() {
        BodyListener l = bodyListener;
        listenerExpected = false;
        bodyListener = null;
        return l;
    }

    @Override
    public void onBody(BodyListener listener) throws Exception {
        checkLive();
        if (listenerExpected) {
            if (bodyListener != null) {
                throw new IllegalStateException("onBody may be called once");
            }
            bodyListener = listener;
            return;
        }
        if (incomingBody != null) {
            throw new IllegalStateException("the body is streamed to a blocking handler: use bodyStream()");
        }
        if (bodyLength > 0) {
            listener.onData(body());
        }
        listener.onEnd();
    }

    /**
     * While {@code on}, every {@link dev.peregrine.Request} method throws: the connection sets it
     * around calls into code that runs after the handler returned (a {@code res.stream} producer),
     * when this view may already describe another request, or memory given back to the pool.
     * Thread: the owning loop.
     */
    public void expire(boolean on) {
        expired = on;
    }

    private void checkLive() {
        if (expired) {
            throw new IllegalStateException("the request is no longer valid once its handler has returned:"
                    + " copy what a body producer needs (or req.copy()) before returning");
        }
    }

    @Override
    public Request copy() {
        checkLive();
        return detach(ByteBuffer.allocate(copyLength()).order(ByteOrder.LITTLE_ENDIAN), 0);
    }

    /** Bytes {@link #detach} copies: from the method's first byte to the body's last. */
    public int copyLength() {
        return bodyStart + bodyLength - methodStart;
    }

    /**
     * Copies this request's bytes — from its method's first byte to its body's last, which
     * {@link #setBody} must have set (empty for a streamed body) — into {@code dst} at {@code at}, and
     * returns a new view over the copy with every offset moved accordingly. The new view is
     * independent of this one and of the loop: it is valid as long as {@code dst} is.
     */
    public RequestView detach(ByteBuffer dst, int at) {
        return detachInto(dst, at, new RequestView(Math.max(1, headerCount)));
    }

    /**
     * As {@link #detach}, into an existing view {@code c} (reused for another request), which must
     * hold at least this request's number of header fields. Returns {@code c}.
     */
    public RequestView detachInto(ByteBuffer dst, int at, RequestView c) {
        int from = methodStart;
        int length = bodyStart + bodyLength - from;
        dst.put(at, buf, from, length);
        int shift = at - from;
        c.incomingBody = null;
        c.listenerExpected = false;
        c.bodyListener = null;
        c.buf = dst;
        c.method = method;
        c.methodStart = methodStart + shift;
        c.methodEnd = methodEnd + shift;
        c.pathStart = pathStart + shift;
        c.pathEnd = pathEnd + shift;
        c.queryStart = queryStart < 0 ? -1 : queryStart + shift;
        c.authorityStart = authorityStart < 0 ? -1 : authorityStart + shift;
        c.authorityEnd = authorityEnd + shift;
        c.targetEnd = targetEnd + shift;
        c.version = version;
        c.asteriskForm = asteriskForm;
        c.absolutePathEmpty = absolutePathEmpty;
        for (int i = 0; i < headerCount; i++) {
            c.nameStart[i] = nameStart[i] + shift;
            c.nameEnd[i] = nameEnd[i] + shift;
            c.valueStart[i] = valueStart[i] + shift;
            c.valueEnd[i] = valueEnd[i] + shift;
        }
        c.headerCount = headerCount;
        c.contentLength = contentLength;
        c.chunked = chunked;
        c.expectContinue = expectContinue;
        c.connectionClose = connectionClose;
        c.connectionKeepAlive = connectionKeepAlive;
        c.bodyBuf = dst;
        c.bodyStart = bodyStart + shift;
        c.bodyLength = bodyLength;
        c.paramNames = paramNames;
        int paramShift = absolutePathEmpty ? 0 : shift; // the root path lives in a constant buffer
        for (int i = 0; i < paramCount; i++) {
            c.paramStart[i] = paramStart[i] + paramShift;
            c.paramEnd[i] = paramEnd[i] + paramShift;
        }
        c.paramCount = paramCount;
        c.remoteAddress = remoteAddress;
        c.requestId = requestId;
        c.startNanos = startNanos;
        return c;
    }

    @Override
    public FormCursor queryPairs() {
        checkLive();
        return cursors.query(buf, queryStart, targetEnd);
    }

    @Override
    public FormCursor formPairs() {
        checkLive();
        requireBodyInMemory();
        return bodyLength == 0 ? cursors.form(buf, 0, 0) : cursors.form(bodyBuf, bodyStart, bodyLength);
    }

    @Override
    public CookieCursor cookieCursor() {
        checkLive();
        return cursors.cookies(this);
    }

    @Override
    public String toString() {
        // For logs: the raw request line, never refused (not even while expired).
        return RequestText.ascii(buf, methodStart, targetEnd) + (version == 10 ? " HTTP/1.0" : " HTTP/1.1");
    }
}
