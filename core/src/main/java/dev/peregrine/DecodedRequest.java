package dev.peregrine;

import dev.peregrine.cookie.CookieCursor;
import dev.peregrine.form.FormCursor;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The request a {@link RequestDecoding} filter hands on: the original for everything but the body,
 * which is the decoded one — in memory ({@link #decoded}) or, for a streamed body, a decoding stream.
 * {@code Content-Encoding} reads as absent through {@link #header}, {@link #headerView},
 * {@link #hasHeader} and the indexed fields ({@link #headerCount}, {@link #headerName}: its field lines
 * are left out); {@code Content-Length} and the other fields are as the client sent them.
 * Valid as long as the original is.
 *
 * <p>Thread: the thread running the handler.
 */
final class DecodedRequest implements Request {
    private final Request original;
    /** The decoded body (heap), or null when the body is streamed. */
    private final ByteBuffer decoded;
    private final InputStream decodedStream;
    private FormCursor formCursor;

    /** The original's field lines but Content-Encoding's, by index: the decoded request has no coding. */
    private final int[] fieldLines;

    DecodedRequest(Request original, ByteBuffer decoded, InputStream decodedStream) {
        this.original = original;
        this.decoded = decoded;
        this.decodedStream = decodedStream;
        int n = original.headerCount();
        int[] lines = new int[n];
        int kept = 0;
        for (int i = 0; i < n; i++) {
            if (!isContentEncoding(original.headerName(i).toString())) {
                lines[kept++] = i;
            }
        }
        this.fieldLines = java.util.Arrays.copyOf(lines, kept);
    }

    private static boolean isContentEncoding(String name) {
        return name.equalsIgnoreCase("Content-Encoding");
    }

    @Override public String method() { return original.method(); }
    @Override public String path() { return original.path(); }
    @Override public CharSequence pathView() { return original.pathView(); }
    @Override public String query() { return original.query(); }
    @Override public String queryParam(String name) { return original.queryParam(name); }
    @Override public java.util.List<String> queryParams(String name) { return original.queryParams(name); }
    @Override public java.util.Map<String, java.util.List<String>> queryParams() { return original.queryParams(); }
    @Override public String pathParam(String name) { return original.pathParam(name); }
    @Override public String version() { return original.version(); }
    @Override public String header(String name) { return isContentEncoding(name) ? null : original.header(name); }
    @Override public CharSequence headerView(String name) { return isContentEncoding(name) ? null : original.headerView(name); }
    @Override public boolean hasHeader(String name) { return !isContentEncoding(name) && original.hasHeader(name); }
    @Override public int headerCount() { return fieldLines.length; }
    @Override public Trailers trailers() { return original.trailers(); }
    @Override public String host() { return original.host(); }
    @Override public CharSequence headerName(int index) { return original.headerName(fieldLines[index]); }
    @Override public CharSequence headerValue(int index) { return original.headerValue(fieldLines[index]); }
    @Override public boolean keepAlive() { return original.keepAlive(); }
    @Override public InetSocketAddress remoteAddress() { return original.remoteAddress(); }
    @Override public FormCursor queryPairs() { return original.queryPairs(); }
    @Override public CookieCursor cookieCursor() { return original.cookieCursor(); }

    private ByteBuffer inMemory() {
        if (decoded == null) {
            throw new IllegalStateException("the request body is streamed to this handler (larger than"
                    + " streamBodyThreshold): read it with req.bodyStream(), which decodes it as it arrives");
        }
        return decoded;
    }

    @Override
    public ByteBuffer body() {
        return inMemory().asReadOnlyBuffer();
    }

    @Override
    public int bodyLength() {
        return inMemory().remaining();
    }

    @Override
    public byte[] bodyBytes() {
        ByteBuffer b = inMemory().duplicate();
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    @Override
    public String bodyString() {
        return new String(bodyBytes(), StandardCharsets.UTF_8);
    }

    @Override
    public boolean bodyStreamed() {
        return decoded == null;
    }

    @Override
    public InputStream bodyStream() {
        if (decoded == null) {
            return decodedStream;
        }
        ByteBuffer b = decoded.duplicate();
        return new java.io.ByteArrayInputStream(b.array(), b.arrayOffset() + b.position(), b.remaining());
    }

    @Override
    public void onBody(BodyListener listener) throws Exception {
        ByteBuffer b = inMemory();
        if (b.hasRemaining()) {
            listener.onData(b.asReadOnlyBuffer());
        }
        if (!original.trailers().isEmpty()) {
            listener.onTrailers(original.trailers());
        }
        listener.onEnd();
    }

    @Override
    public FormCursor formPairs() {
        ByteBuffer b = inMemory();
        if (formCursor == null) {
            formCursor = new FormCursor();
        }
        return formCursor.reset(b, b.position(), b.limit());
    }

    @Override
    public Request copy() {
        return new DecodedRequest(original.copy(), decoded == null ? null : ByteBuffer.wrap(bodyBytes()), decodedStream);
    }

    @Override
    public String toString() {
        return original.toString();
    }

    @Override
    public <T> T attribute(String name) {
        return original.attribute(name);
    }

    @Override
    public Request attribute(String name, Object value) {
        original.attribute(name, value);
        return this;
    }
}
