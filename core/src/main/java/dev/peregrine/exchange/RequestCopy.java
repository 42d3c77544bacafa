package dev.peregrine.exchange;

import java.nio.ByteBuffer;

/**
 * Copies a request out of the buffer it was parsed in: its bytes, from the method's first byte to the
 * body's last, go to a buffer of the caller's, and a view gets every offset of the original moved by
 * the same distance. This is how a request leaves the loop (an off-loop exchange, {@code req.copy()}):
 * the copy depends on nothing the loop reuses.
 *
 * <pre>
 *   src.buf:  ....[GET /a?x HTTP/1.1\r\nHost: h\r\n\r\n body]....
 *                 ^methodStart                       ^bodyStart  ^bodyStart+bodyLength
 *   dst:      [at ... same bytes ...]                 every offset += at - methodStart
 * </pre>
 *
 * A streamed body is not copied (its in-memory length is 0), and the copy's body is in memory: any
 * stream or listener mark is cleared. Thread: the caller's; the source must not change meanwhile.
 */
public final class RequestCopy {
    private RequestCopy() {
    }

    /** Bytes {@link #into} copies: from the request's first byte to the body's last. */
    public static int length(RequestView r) {
        return r.body.start() + r.body.storedLength() - r.firstByte();
    }

    /**
     * Copies {@code r} — whose body {@link RequestView#setBody} must have set (empty for a streamed
     * body) — into {@code dst} at {@code at}, and returns a new view over the copy: independent of
     * {@code r} and of the loop, valid as long as {@code dst} is.
     */
    public static RequestView detach(RequestView r, ByteBuffer dst, int at) {
        return into(r, dst, at, new RequestView(Math.max(1, r.fieldCount())));
    }

    /**
     * As {@link #detach}, into an existing view {@code c} (reused for another request), which must hold
     * at least {@code r}'s number of header fields; {@code c} may be {@code r} itself (each field is
     * read before it is written). Returns {@code c}.
     */
    public static RequestView into(RequestView r, ByteBuffer dst, int at, RequestView c) {
        int from = r.firstByte();
        int bodyStart = r.body.start();
        int bodyLength = r.body.storedLength();
        int length = bodyStart + bodyLength - from;
        dst.put(at, r.headBuffer(), from, length);
        int shift = at - from;
        c.body.endStreaming();
        c.copyHead(r, dst, shift); // the offsets, in the codec's RequestHead
        c.body.set(dst, bodyStart + shift, bodyLength);
        c.params.copy(r.params, r.isAbsolutePathEmpty() ? 0 : shift); // the root path lives in a constant buffer
        c.setRemoteAddress(r.remote()); // on the loop: the copy may be read off it
        c.requestId = r.requestId;
        c.trailers = r.trailers;
        c.startNanos = r.startNanos;
        if (c != r) { // attributes set by filters before the hand-off (or async()) go with the request
            if (r.attributes != null && !r.attributes.isEmpty()) {
                if (c.attributes == null) {
                    c.attributes = new java.util.HashMap<>(r.attributes);
                } else {
                    c.attributes.clear();
                    c.attributes.putAll(r.attributes);
                }
            } else if (c.attributes != null) {
                c.attributes.clear();
            }
        }
        return c;
    }

}
