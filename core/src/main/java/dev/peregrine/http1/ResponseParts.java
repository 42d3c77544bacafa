package dev.peregrine.http1;

/**
 * What a {@link ResponseSource} (the exchange's response view) holds, read by an encoder other than
 * {@link ResponseEncoder} (HTTP/2's HEADERS and DATA frames) and by the exchange's compressor: status,
 * fields and body, without copies but for {@link #copyBody}, which puts the body in the caller's array.
 * Thread: the view's.
 */
public final class ResponseParts {
    private ResponseParts() {
    }

    public static int status(ResponseSource res) {
        return res.status;
    }

    /** The Content-Type, or null. */
    public static CharSequence contentType(ResponseSource res) {
        return res.contentType;
    }

    public static int headerCount(ResponseSource res) {
        return res.headerCount;
    }

    public static String headerName(ResponseSource res, int i) {
        return res.headerNames[i];
    }

    public static CharSequence headerValue(ResponseSource res, int i) {
        return res.headerValues[i];
    }

    /** Preformatted {@code Name: value\r\n} lines ({@code ResponseView.fields}), or null. */
    public static byte[] fields(ResponseSource res) {
        return res.fields;
    }

    /** The request id to echo as {@code X-Request-Id}, or null. */
    public static CharSequence requestId(ResponseSource res) {
        return res.requestId;
    }

    /** The in-memory body's length in bytes (UTF-8 for text). */
    public static int bodyLength(ResponseSource res) {
        return (int) ResponseEncoder.bodyLength(res);
    }

    /** Copies the in-memory body ({@link #bodyLength} bytes) into {@code dst} from 0. */
    public static void copyBody(ResponseSource res, byte[] dst) {
        ResponseEncoder.bodyInto(res, dst, 0, bodyLength(res));
    }

    /** What the body is: {@link ResponseSource#BODY_NONE}, {@code BODY_BYTES}, {@code BODY_BUFFER} or {@code BODY_CHARS}. */
    public static int bodyKind(ResponseSource res) {
        return res.bodyKind;
    }

    /** The body set as bytes ({@code BODY_BYTES}). */
    public static byte[] bodyBytes(ResponseSource res) {
        return res.bodyBytes;
    }

    /** The body set as a buffer, position to limit ({@code BODY_BUFFER}). */
    public static java.nio.ByteBuffer bodyBuffer(ResponseSource res) {
        return res.bodyBuffer;
    }

    /** The body set as text, sent as UTF-8 ({@code BODY_CHARS}). */
    public static CharSequence bodyChars(ResponseSource res) {
        return res.bodyChars;
    }
}
