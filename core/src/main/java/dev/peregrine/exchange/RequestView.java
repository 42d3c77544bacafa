package dev.peregrine.exchange;

import dev.peregrine.BodyListener;
import dev.peregrine.Request;
import dev.peregrine.buffer.Ascii;
import dev.peregrine.buffer.AsciiView;
import dev.peregrine.cookie.CookieCursor;
import dev.peregrine.form.FormCursor;
import dev.peregrine.http1.HeadParser;
import dev.peregrine.http1.Methods;
import dev.peregrine.http1.RequestHead;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The loop's one {@link Request}: a flyweight over the offsets that {@link HeadParser} (HTTP/1.1)
 * or {@link dev.peregrine.http1.RequestFields} (HTTP/2) records into the buffer holding the request;
 * the offsets and their layout are its superclass's, the codec's {@link RequestHead}, which names no
 * view. Re-pointed for every request; see {@link Request} for how long its views stay valid.
 *
 * <p>Helpers, one job each: {@link RequestBody} (the body in memory or streamed, with its modes),
 * {@link PathParams} (the route's parameters), {@link RequestCopy} (a copy off the loop's buffer),
 * {@link RequestCursors} (the query, form and cookie cursors); and the accessor groups the API hands
 * out, made once with the view: {@link HeaderGroup}, {@link QueryGroup}, {@link FormGroup},
 * {@link CookieGroup}, each reading through this view's package-private getters (which check liveness).
 *
 * <p>Thread: the owning event loop.
 */
public final class RequestView extends RequestHead implements Request {
    private static final ByteBuffer ROOT_PATH =
            ByteBuffer.allocateDirect(1).order(ByteOrder.LITTLE_ENDIAN).put(0, (byte) '/');

    /** The matched route's number ({@code Router.routePattern}), -1 when the router answered itself. */
    private int routeId = -1;
    /**
     * The request's attributes ({@link #attribute(String, Object)}): null until the first is set on
     * this view, then kept (cleared) for later requests; a copy ({@link RequestCopy}) gets its own.
     */
    java.util.Map<String, Object> attributes;

    /** The body: in memory or streamed ({@link RequestBody}). */
    final RequestBody body = new RequestBody();

    private final AsciiView pathView = new AsciiView();
    private final AsciiView rawParamView = new AsciiView();
    private final RequestCursors cursors = new RequestCursors();
    private final AsciiView[] nameViews;
    private final AsciiView[] valueViews;

    final PathParams params = new PathParams();

    // The accessor groups (Request.headers(), query(), form(), cookies()): made once with the view,
    // answering for whichever request it holds, so asking for one allocates nothing.
    private final HeaderGroup headerGroup = new HeaderGroup(this);
    private final QueryGroup queryGroup = new QueryGroup(this);
    private final FormGroup formGroup = new FormGroup(this);
    private final CookieGroup cookieGroup = new CookieGroup(this);

    /** The peer's address once known; null with {@link #remoteOf} set: asked at the first {@link #remoteAddress()}. */
    InetSocketAddress remoteAddress;
    /** Where the peer's address comes from (the connection's endpoint), or null. */
    private java.util.function.Supplier<InetSocketAddress> remoteOf;
    /** {@link #requestId()}: set per request only while request ids are on. */
    String requestId;
    /** {@link System#nanoTime()} when the request was dispatched; set only while the access log is on. */
    long startNanos;
    /** Set while code that runs after the handler returned (a body producer) could reach this view. */
    private boolean expired;
    /**
     * The body's trailer fields once it was read to its end, or null (none yet, none at all). Written
     * by the loop before the body's end is signalled (a blocking handler sees it after the end of its
     * stream, through the chunk queue); immutable.
     */
    dev.peregrine.Trailers trailers;

    /** @param maxHeaders the most header fields a request may carry */
    public RequestView(int maxHeaders) {
        super(maxHeaders);
        nameViews = new AsciiView[maxHeaders];
        valueViews = new AsciiView[maxHeaders];
        for (int i = 0; i < maxHeaders; i++) {
            nameViews[i] = new AsciiView();
            valueViews[i] = new AsciiView();
        }
    }

    /** Clears everything before the parser fills the view for the request at {@code buf}. */
    @Override
    protected void reset(ByteBuffer buf) {
        super.reset(buf);
        if (attributes != null) {
            attributes.clear(); // kept for the next request that uses attributes: none allocated when unused
        }
        if (params.count != 0) {
            params.clear(); // only after a route with parameters: a static one set none
        }
        if (body.buf != null || body.whole != null) {
            body.clear(); // only after a body in memory: a bodiless request left nothing to clear
        }
        trailers = null;
    }

    /** The trailer fields that ended the body ({@code namesAndValues} alternating; null or empty: none). */
    public void setTrailers(String[] namesAndValues) {
        trailers = namesAndValues == null || namesAndValues.length == 0 ? null : dev.peregrine.Trailers.of(namesAndValues);
    }

    @Override
    public dev.peregrine.Trailers trailers() {
        dev.peregrine.Trailers t = trailers;
        return t != null ? t : dev.peregrine.Trailers.EMPTY;
    }

    /**
     * Sets the body to bytes {@code [start, start+length)} of {@code b}. A bodiless request on a view that
     * holds no body (the {@link #reset} before it cleared one, or there was none) changes only where the
     * head ends: the state {@link RequestBody#set} would leave (no buffer, length 0) is already there.
     */
    @Override
    public void setBody(ByteBuffer b, int start, int length) {
        if (length == 0 && body.buf == null) {
            body.start = start;
        } else {
            body.set(b, start, length);
        }
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
        remoteOf = null;
    }

    /**
     * Sets where this request's peer address comes from, asked (on the loop) only when the handler
     * wants it: the connection's endpoint, which need not make an address object per connection.
     */
    public void remoteFrom(java.util.function.Supplier<InetSocketAddress> source) {
        remoteAddress = null;
        remoteOf = source;
    }

    /** The peer's address, asked of {@link #remoteOf} the first time. */
    InetSocketAddress remote() {
        if (remoteAddress == null && remoteOf != null) {
            remoteAddress = remoteOf.get();
        }
        return remoteAddress;
    }

    /** Set by the router: the matched route's number, or -1. Thread: the loop. */
    public void setRouteId(int id) {
        routeId = id;
    }

    /** The matched route's number ({@code Router.routePattern(int)}), or -1 when the router answered itself. */
    public int routeId() {
        return routeId;
    }

    /** Records the route's path parameters: names and their {@code [start, end)} in the path's buffer. */
    public void setPathParams(String[] names, int[] starts, int[] ends, int count) {
        params.set(names, starts, ends, count);
    }

    /** The method id ({@link Methods}). */
    public int methodId() {
        return method;
    }

    /** 10, 11, or 20 for a request over HTTP/2. */
    public int versionNumber() {
        return version;
    }

    /** Whether the target was {@code *} (OPTIONS only). */
    public boolean isAsteriskForm() {
        return asteriskForm;
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
    public String rawQuery() {
        checkLive();
        return queryStart < 0 ? null : RequestText.ascii(buf, queryStart, targetEnd);
    }

    String queryParam(String name) {
        checkLive();
        return queryStart < 0 ? null : cursors.lookup(buf, queryStart, targetEnd).first(name);
    }

    java.util.List<String> queryParams(String name) {
        checkLive();
        return cursors.lookup(buf, queryStart, targetEnd).all(name);
    }

    java.util.Map<String, java.util.List<String>> queryParams() {
        checkLive();
        return cursors.lookup(buf, queryStart, targetEnd).toMap();
    }

    @Override
    public String pathParam(String name) {
        checkLive();
        return params.value(name, pathBuffer());
    }

    /**
     * The bytes matched by {@code {name}} as sent (percent-encoding kept), a view over
     * {@link #pathBuffer()} re-pointed by each call, or null. No allocation: for handlers that decode
     * into their own buffer ({@code files.StaticFiles}' cache lookup).
     */
    public AsciiView rawPathParam(String name) {
        checkLive();
        return params.raw(name, pathBuffer(), rawParamView);
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
        return version == 10 ? "HTTP/1.0" : version == 20 ? "HTTP/2.0" : "HTTP/1.1";
    }

    private int indexOf(String name) {
        int n = name.length();
        int[] f = fieldOffsets;
        for (int i = 0; i < headerCount; i++) {
            int j = i * FIELD_INTS;
            int ns = f[j + NAME_START];
            int ne = f[j + NAME_END];
            if (ne - ns == n && Ascii.equalsIgnoreCase(buf, ns, ne, name)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String header(String name) {
        checkLive();
        int i = indexOf(name);
        return i < 0 ? null : RequestText.ascii(buf, valueStart(i), valueEnd(i));
    }

    CharSequence headerView(String name) {
        checkLive();
        int i = indexOf(name);
        return i < 0 ? null : headerValue(i);
    }

    boolean hasHeader(String name) {
        checkLive();
        return indexOf(name) >= 0;
    }

    int headerCount() {
        checkLive();
        return headerCount;
    }

    CharSequence headerName(int index) {
        checkLive();
        checkHeader(index);
        return nameViews[index].set(buf, nameStart(index), nameEnd(index));
    }

    CharSequence headerValue(int index) {
        checkLive();
        checkHeader(index);
        return valueViews[index].set(buf, valueStart(index), valueEnd(index));
    }

    /** Every value of header {@code name} (case-insensitive), in order ({@link HeaderGroup#all}). */
    java.util.List<String> headerValues(String name) {
        checkLive();
        java.util.List<String> values = new java.util.ArrayList<>(1);
        int n = name.length();
        int[] f = fieldOffsets;
        for (int i = 0; i < headerCount; i++) {
            int j = i * FIELD_INTS;
            int ns = f[j + NAME_START];
            int ne = f[j + NAME_END];
            if (ne - ns == n && Ascii.equalsIgnoreCase(buf, ns, ne, name)) {
                values.add(RequestText.ascii(buf, f[j + VALUE_START], f[j + VALUE_END]));
            }
        }
        return values;
    }

    @Override
    public dev.peregrine.Headers headers() {
        checkLive();
        return headerGroup;
    }

    @Override
    public dev.peregrine.Params query() {
        checkLive();
        return queryGroup;
    }

    @Override
    public dev.peregrine.Params form() {
        checkLive();
        return formGroup;
    }

    @Override
    public dev.peregrine.Cookies cookies() {
        checkLive();
        return cookieGroup;
    }

    private void checkHeader(int index) {
        if (index < 0 || index >= headerCount) {
            throw new IndexOutOfBoundsException(index);
        }
    }

    @Override
    public ByteBuffer body() {
        checkLive();
        return body.view();
    }

    @Override
    public int bodyLength() {
        checkLive();
        return body.length();
    }

    @Override
    public byte[] bodyBytes() {
        checkLive();
        return body.bytes();
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
        return remote();
    }

    /** The index of the first body byte, which is also where the head ends. */
    public int bodyStartIndex() {
        return body.start();
    }

    /** Makes the body a stream that delivers it as it arrives (see {@link Request#bodyStream()}). */
    public void setIncomingBody(InputStream stream) {
        body.setIncoming(stream);
    }

    @Override
    public boolean bodyStreamed() {
        checkLive();
        return body.streamed();
    }

    @Override
    public InputStream bodyStream() {
        checkLive();
        return body.stream();
    }

    /** Marks the body as streamed to the inline handler about to run (a {@code Handlers.streaming} one). */
    public void expectListener() {
        body.expectListener();
    }

    /** The listener the streaming handler registered (or null), ending the inline streaming mark. */
    public BodyListener takeBodyListener() {
        return body.takeListener();
    }

    @Override
    public void onBody(BodyListener listener) throws Exception {
        checkLive();
        body.onBody(listener, trailers());
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
    @SuppressWarnings("unchecked")
    public <T> T attribute(String name) {
        checkLive();
        return attributes == null ? null : (T) attributes.get(name);
    }

    @Override
    public Request attribute(String name, Object value) {
        checkLive();
        java.util.Objects.requireNonNull(name, "name");
        if (value == null) {
            if (attributes != null) {
                attributes.remove(name);
            }
        } else {
            if (attributes == null) {
                attributes = new java.util.HashMap<>(8);
            }
            attributes.put(name, value);
        }
        return this;
    }

    @Override
    public Request copy() {
        checkLive();
        return RequestCopy.detach(this, ByteBuffer.allocate(RequestCopy.length(this)).order(ByteOrder.LITTLE_ENDIAN), 0);
    }

    FormCursor queryPairs() {
        checkLive();
        return cursors.query(buf, queryStart, targetEnd);
    }

    FormCursor formPairs() {
        checkLive();
        int length = body.length(); // reads a body streamed to a blocking handler whole; refuses one on the loop
        return length == 0 ? cursors.form(buf, 0, 0) : cursors.form(body.buffer(), body.dataStart(), length);
    }

    CookieCursor cookieCursor() {
        checkLive();
        return cursors.cookies(this);
    }

    @Override
    public String toString() {
        // For logs: the raw request line, never refused (not even while expired).
        if (version == 20) { // RequestFields: method and target are not adjacent
            return RequestText.ascii(buf, methodStart, methodEnd) + " " + RequestText.ascii(buf, pathStart, targetEnd) + " HTTP/2.0";
        }
        return RequestText.ascii(buf, methodStart, targetEnd) + (version == 10 ? " HTTP/1.0" : " HTTP/1.1");
    }
}
