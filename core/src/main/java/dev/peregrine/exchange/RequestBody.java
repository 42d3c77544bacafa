package dev.peregrine.exchange;

import dev.peregrine.BodyListener;

import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * A request's body as its handler reaches it, for {@link RequestView}: bytes in memory, or a body
 * streamed to the handler as it arrives because it is larger than {@code streamBodyThreshold}.
 *
 * <pre>
 *   IN MEMORY   [start, start+length) of buf   body(), bodyBytes(), form(), bodyStream() over it
 *   STREAM      an InputStream fed off the loop   bodyStream(); or read WHOLE by the first in-memory call
 *   WHOLE       a streamed body read into heap    as IN MEMORY (a blocking handler called bodyBytes()...)
 *   LISTENER    while an inline streaming handler runs: onBody(listener) only, taken by the connection
 * </pre>
 *
 * A blocking handler's body is bounded by its route's limit ({@code maxStreamedBodySize}), not by how
 * it was framed: a Content-Length body above {@code streamBodyThreshold} arrives as a stream, and
 * {@code body()}, {@code bodyBytes()}, {@code bodyString()}, {@code bodyAs} and {@code form()} read
 * what is left of it whole (blocking, on the handler's thread) the first time one is called. On the
 * loop (a streaming handler's listener mode) in-memory access still throws rather than block or
 * answer empty. Thread: as the owning view.
 */
final class RequestBody {
    /**
     * The in-memory body's buffer; null while it has no bytes ({@code length} 0): a bodiless request
     * leaves nothing here, so {@link RequestView} reads this (and {@link #whole}) to skip {@link #clear}
     * and {@link #set} for the next bodiless one (no call into this class for a plain GET).
     */
    ByteBuffer buf;
    /** Where the body starts, which is also where the head ends; {@link RequestView#setBody} writes it alone for a bodiless request. */
    int start;
    private int length;
    private ByteBuffer readOnlySource;
    private ByteBuffer readOnlyView;
    private final ByteBuffer empty = ByteBuffer.allocate(0).asReadOnlyBuffer();
    /** The body as it arrives, when it is streamed to an off-loop handler; null otherwise. */
    private InputStream incoming;
    /** A streamed body read whole ({@link #readWhole}); null otherwise. Its bytes are [0, limit). */
    ByteBuffer whole;
    /** Set while an inline streaming handler runs for a streamed body; see {@link #takeListener}. */
    private boolean listenerExpected;
    private BodyListener listener;

    /** No body yet (a new request's head is being parsed). */
    void clear() {
        buf = null;
        length = 0;
        whole = null;
    }

    /** The body is bytes {@code [start, start+length)} of {@code b} (no buffer kept when there are none). */
    void set(ByteBuffer b, int start, int length) {
        buf = length == 0 ? null : b;
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
        whole = null;
        listenerExpected = false;
        listener = null;
    }

    void setIncoming(InputStream body) {
        incoming = body;
    }

    boolean streamed() {
        return (incoming != null && whole == null) || listenerExpected;
    }

    /**
     * Before in-memory access: a body streamed to a blocking handler is read whole now (the rest of
     * it, if the handler already read some through the stream); on the loop it throws.
     */
    private void requireInMemory() {
        if (incoming != null && !listenerExpected) {
            if (whole == null) {
                readWhole();
            }
            return;
        }
        if (streamed()) {
            throw new IllegalStateException("the request body is streamed to this handler (larger than"
                    + " streamBodyThreshold): read it with req.bodyStream()"
                    + (listenerExpected ? " or req.onBody(listener)" : "")
                    + ", not body(), bodyBytes(), bodyString() or bodyLength()");
        }
    }

    private void readWhole() {
        try {
            whole = ByteBuffer.wrap(incoming.readAllBytes()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("the request body did not arrive whole", e);
        }
    }

    /** A read-only view of the in-memory body, reused for the same buffer. */
    ByteBuffer view() {
        requireInMemory();
        if (whole != null) {
            return whole.asReadOnlyBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        }
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
        return whole != null ? whole.limit() : length;
    }

    byte[] bytes() {
        requireInMemory();
        if (whole != null) {
            return java.util.Arrays.copyOf(whole.array(), whole.limit());
        }
        byte[] b = new byte[length];
        if (length > 0) {
            buf.get(start, b);
        }
        return b;
    }

    /** The buffer the in-memory body lives in (null when empty), after the streamed check. */
    ByteBuffer buffer() {
        requireInMemory();
        return whole != null ? whole : buf;
    }

    /** Where the in-memory body starts in {@link #buffer()}. */
    int dataStart() {
        return whole != null ? 0 : start;
    }

    InputStream stream() {
        if (listenerExpected) {
            throw new IllegalStateException("the body is streamed to the loop: use onBody(listener)");
        }
        return incoming != null && whole == null ? incoming : new BodyInputStream(view());
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

    /** {@code trailers}: the request's, given to the listener before its end when the body is in memory. */
    void onBody(BodyListener l, dev.peregrine.Trailers trailers) throws Exception {
        if (listenerExpected) {
            if (listener != null) {
                throw new IllegalStateException("onBody may be called once");
            }
            listener = l;
            return;
        }
        if (incoming != null && whole == null) {
            throw new IllegalStateException("the body is streamed to a blocking handler: use bodyStream()");
        }
        if (length > 0) {
            l.onData(view());
        }
        if (!trailers.isEmpty()) {
            l.onTrailers(trailers);
        }
        l.onEnd();
    }
}
