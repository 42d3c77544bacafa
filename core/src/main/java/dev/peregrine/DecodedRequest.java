package dev.peregrine;

import dev.peregrine.form.FormCursor;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The request a {@link RequestDecoding} filter hands on: the original for everything but the body,
 * which is the decoded one — in memory ({@link #decoded}) or, for a streamed body, a decoding stream.
 * {@code Content-Encoding} reads as absent through {@link #header} and every method of
 * {@link #headers()} ({@link DecodedHeaders}: its field lines are left out of the indexed ones too);
 * {@code Content-Length} and the other fields are as the client sent them. {@link #form()} reads the
 * decoded body; the query and cookies are the original's.
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
    private final Headers headers;
    private final Params form = new DecodedForm(this);

    DecodedRequest(Request original, ByteBuffer decoded, InputStream decodedStream) {
        this.original = original;
        this.decoded = decoded;
        this.decodedStream = decodedStream;
        this.headers = new DecodedHeaders(original.headers());
    }

    @Override public String method() { return original.method(); }
    @Override public String path() { return original.path(); }
    @Override public CharSequence pathView() { return original.pathView(); }
    @Override public String rawQuery() { return original.rawQuery(); }
    @Override public Params query() { return original.query(); }
    @Override public String pathParam(String name) { return original.pathParam(name); }
    @Override public String version() { return original.version(); }
    @Override public String header(String name) { return headers.get(name); }
    @Override public Headers headers() { return headers; }
    @Override public Trailers trailers() { return original.trailers(); }
    @Override public String host() { return original.host(); }
    @Override public boolean keepAlive() { return original.keepAlive(); }
    @Override public InetSocketAddress remoteAddress() { return original.remoteAddress(); }
    @Override public Params form() { return form; }
    @Override public Cookies cookies() { return original.cookies(); }

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

    /** The form's cursor ({@link DecodedForm}): over the decoded body. */
    FormCursor formPairs() {
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
