package dev.peregrine.http1;

import java.nio.ByteBuffer;

/**
 * Fills a {@link RequestHead} from fields decoded elsewhere than {@link HeadParser}: an HTTP/2
 * stream's HPACK block (RFC 9113 §8.3), decoded into one buffer. The request view over the head then
 * reads exactly as for an HTTP/1.1 request, so handlers cannot tell the protocols apart, but for the
 * version it answers ({@code HTTP/2.0}). The pseudo-header fields map as:
 * <pre>
 *   :method     the request line's method
 *   :path       the request target (origin form, or "*" for OPTIONS): path and query
 *   :authority  the target's authority (what req.host() answers, as an absolute-form target's would)
 *   :scheme     not kept
 * </pre>
 * Callers validate (the HTTP/2 rules are theirs); this class only points the view at the bytes.
 * Thread: the view's.
 */
public final class RequestFields {
    private RequestFields() {
    }

    /** Starts a request whose bytes are in {@code buf}. */
    public static void begin(RequestHead v, ByteBuffer buf) {
        v.reset(buf);
        v.version = 20;
        v.methodStart = 0;
        v.methodEnd = 0;
        v.method = Methods.OTHER;
        v.pathStart = 0;
        v.pathEnd = 0;
        v.targetEnd = 0;
    }

    /** {@code :method} is bytes {@code [start, end)}. */
    public static void method(RequestHead v, int start, int end) {
        v.methodStart = start;
        v.methodEnd = end;
        v.method = Methods.id(v.buf, start, end);
    }

    /** {@code :path} is bytes {@code [start, end)}: {@code *} or a path with an optional query. */
    public static void target(RequestHead v, int start, int end) {
        v.pathStart = start;
        v.targetEnd = end;
        v.pathEnd = end;
        v.queryStart = -1;
        if (end - start == 1 && v.buf.get(start) == '*') {
            v.asteriskForm = true;
            return;
        }
        for (int i = start; i < end; i++) {
            if (v.buf.get(i) == '?') {
                v.pathEnd = i;
                v.queryStart = i + 1;
                break;
            }
        }
    }

    /** {@code :authority} is bytes {@code [start, end)}. */
    public static void authority(RequestHead v, int start, int end) {
        v.authorityStart = start;
        v.authorityEnd = end;
    }

    /** Adds a field; false when the view holds as many as it can. */
    public static boolean header(RequestHead v, int nameStart, int nameEnd, int valueStart, int valueEnd) {
        if (v.headerCount == v.fieldCapacity()) {
            return false;
        }
        v.addField(nameStart, nameEnd, valueStart, valueEnd);
        return true;
    }

    /** The declared {@code content-length}, or -1. */
    public static void contentLength(RequestHead v, long length) {
        v.contentLength = length;
    }

    /** The most fields a view of this loop holds. */
    public static int capacity(RequestHead v) {
        return v.fieldCapacity();
    }
}
