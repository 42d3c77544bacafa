package dev.peregrine.http1;

import java.nio.ByteBuffer;

/**
 * What an encoder reads of a response: the status, the content type, the fields as the handler set
 * them and preformatted ones, the request id to echo, and the body kept by reference.
 * {@link ResponseEncoder} writes it as HTTP/1.1 bytes; {@link ResponseParts} hands it to other
 * encoders (HTTP/2's HEADERS and DATA frames).
 *
 * <pre>
 *   status        200                     -&gt;  HTTP/1.1 200 OK
 *   contentType   "text/plain"            -&gt;  Content-Type: text/plain
 *   headerNames/headerValues [0, headerCount)  -&gt;  Name: value (in order)
 *   fields        "ETag: ..\r\n" lines    -&gt;  copied as they are
 *   requestId     "r-1" or null           -&gt;  X-Request-Id: r-1
 *   bodyKind      BODY_NONE | BODY_BYTES (bodyBytes) | BODY_BUFFER (bodyBuffer, position to limit)
 *                 | BODY_CHARS (bodyChars, sent as UTF-8)
 * </pre>
 *
 * <p>Why a superclass and not a view: the response view a handler fills ({@code exchange.ResponseView})
 * extends this class, so the encoder reads plain fields with no call in between (as fast as when it
 * read the view's own fields), and this package names no view (issue 22: the codec names nothing of
 * the exchange). Fields are protected: the view writes them, the codec here reads them.
 *
 * <p>Thread: the owning event loop.
 */
public abstract class ResponseSource {
    public static final int BODY_NONE = 0;
    public static final int BODY_BYTES = 1;
    public static final int BODY_BUFFER = 2;
    public static final int BODY_CHARS = 3;

    protected int status = 200;
    protected CharSequence contentType;
    protected String[] headerNames = new String[16];
    protected CharSequence[] headerValues = new CharSequence[16];
    protected int headerCount;
    /** Header lines written after the handler's, as they are (each {@code Name: value\r\n}); or null. */
    protected byte[] fields;
    protected int bodyKind;
    protected byte[] bodyBytes;
    protected ByteBuffer bodyBuffer;
    protected CharSequence bodyChars;
    /** The request's id, written by the encoder as {@code X-Request-Id}; null when ids are off. */
    protected CharSequence requestId;

    protected ResponseSource() {
    }

    /** The status code set so far. */
    public final int statusCode() {
        return status;
    }
}
