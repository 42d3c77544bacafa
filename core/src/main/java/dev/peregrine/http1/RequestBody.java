package dev.peregrine.http1;

import dev.peregrine.BodyListener;

import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A request's body as its handler reaches it, for {@link RequestView}: bytes in memory, or a body
 * streamed to the handler as it arrives because it is larger than {@code streamBodyThreshold}.
 *
 * <pre>
 *   IN MEMORY   [start, start+length) of buf   body(), bodyBytes(), formPairs(), bodyStream() over it
 *   STREAM      an InputStream fed off the loop   bodyStream() only (a blocking handler)
 *   LISTENER    while an inline streaming handler runs: onBody(listener) only, taken by the connection
 * </pre>
 *
 * In-memory access to a streamed body throws rather than answer empty: that would be a quietly wrong
 * answer. Thread: as the owning view.
 */
final class RequestBody {
    private ByteBuffer buf;
    private int start;
    private int length;
    private ByteBuffer readOnlySource;
    private ByteBuffer readOnlyView;
    private final ByteBuffer empty = ByteBuffer.allocate(0).asReadOnlyBuffer();
    /** The body as it arrives, when it is streamed to an off-loop handler; null otherwise. */
    private InputStream incoming;
    /** Set while an inline streaming handler runs for a streamed body; see {@link #takeListener}. */
    private boolean listenerExpected;
    private BodyListener listener;

    /** No body yet (a new request's head is being parsed). */
    void clear() {
        buf = null;
        length = 0;
    }

    /** The body is bytes {@code [start, start+length)} of {@code b}. */
    void set(ByteBuffer b, int start, int length) {
        buf = b;
        this.start = start;
        this.length = length;
    }

    /** Where the body starts; also where the head ends. */
    int start() {
        return start;
    }

    /** The in-memory length (0 for a streamed body), without the streamed check. */
    int storedLength() {
        return length;
    }

    /** Forgets any stream or listener: a copied request's body is in memory. */
    void endStreaming() {
        incoming = null;
        listenerExpected = false;
        listener = null;
    }

    void setIncoming(InputStream body) {
        incoming = body;
    }

    boolean streamed() {
        return incoming != null || listenerExpected;
    }

    private void requireInMemory() {
        if (streamed()) {
            throw new IllegalStateException("the request body is streamed to this handler (larger than"
                    + " streamBodyThreshold): read it with req.bodyStream()"
                    + (listenerExpected ? " or req.onBody(listener)" : "")
                    + ", not body(), bodyBytes(), bodyString() or bodyLength()");
        }
    }

    /** A read-only view of the in-memory body, reused for the same buffer. */
    ByteBuffer view() {
        requireInMemory();
        if (length == 0) {
            return empty;
        }
        if (readOnlySource != buf) {
            readOnlySource = buf;
            readOnlyView = buf.asReadOnlyBuffer();
        }
        readOnlyView.limit(start + length).position(start);
        return readOnlyView;
    }

    int length() {
        requireInMemory();
        return length;
    }

    byte[] bytes() {
        requireInMemory();
        byte[] b = new byte[length];
        if (length > 0) {
            buf.get(start, b);
        }
        return b;
    }

    /** The buffer the in-memory body lives in (null when empty), after the streamed check. */
    ByteBuffer buffer() {
        requireInMemory();
        return buf;
    }

    InputStream stream() {
        if (listenerExpected) {
            throw new IllegalStateException("the body is streamed to the loop: use onBody(listener)");
        }
        return incoming != null ? incoming : new BodyInputStream(view());
    }

    void expectListener() {
        listenerExpected = true;
        listener = null;
    }

    BodyListener takeListener() {
        BodyListener l = listener;
        listenerExpected = false;
        listener = null;
        return l;
    }

    void onBody(BodyListener l) throws Exception {
        if (listenerExpected) {
            if (listener != null) {
                throw new IllegalStateException("onBody may be called once");
            }
            listener = l;
            return;
        }
        if (incoming != null) {
            throw new IllegalStateException("the body is streamed to a blocking handler: use bodyStream()");
        }
        if (length > 0) {
            l.onData(view());
        }
        l.onEnd();
    }
}
