package dev.peregrine.http1;

/**
 * What a {@link ResponseView} holds, read by an encoder other than {@link ResponseEncoder} (HTTP/2's
 * HEADERS and DATA frames): status, fields and body, without copies but for the body, which is put
 * in the caller's array. Thread: the view's.
 */
public final class ResponseParts {
    private ResponseParts() {
    }

    public static int status(ResponseView res) {
        return res.status;
    }

    /** The Content-Type, or null. */
    public static CharSequence contentType(ResponseView res) {
        return res.contentType;
    }

    public static int headerCount(ResponseView res) {
        return res.headerCount;
    }

    public static String headerName(ResponseView res, int i) {
        return res.headerNames[i];
    }

    public static CharSequence headerValue(ResponseView res, int i) {
        return res.headerValues[i];
    }

    /** Preformatted {@code Name: value\r\n} lines ({@link ResponseView#fields}), or null. */
    public static byte[] fields(ResponseView res) {
        return res.fields;
    }

    /** The request id to echo as {@code X-Request-Id}, or null. */
    public static CharSequence requestId(ResponseView res) {
        return res.requestId;
    }

    /** The in-memory body's length in bytes (UTF-8 for text). */
    public static int bodyLength(ResponseView res) {
        return (int) ResponseEncoder.bodyLength(res);
    }

    /** Copies the in-memory body ({@link #bodyLength} bytes) into {@code dst} from 0. */
    public static void copyBody(ResponseView res, byte[] dst) {
        ResponseEncoder.bodyInto(res, dst, 0, bodyLength(res));
    }
}
