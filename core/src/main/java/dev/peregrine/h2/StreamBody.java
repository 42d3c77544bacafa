package dev.peregrine.h2;

import java.nio.ByteBuffer;

/**
 * Where a stream's request body goes as its DATA frames arrive, when the server hands it over in
 * pieces (a {@code Handlers.streaming} listener, or a blocking handler's {@code bodyStream()} for a
 * body above {@code streamBodyThreshold} or without {@code content-length}): implemented by the server ({@code server.Http2StreamWork}
 * over {@code offloop.IncomingBody}), so this package names nothing of it. The sink tells the
 * connection what its handler has consumed through {@link PendingStream#bodyConsumed}; only then does
 * the stream's receive window reopen (our WINDOW_UPDATE), which is the backpressure a slow handler
 * puts on its client. It never holds the {@link Http2Stream}: the stream is named by its
 * {@link PendingStream} (connection and id), since streams are reused once closed.
 *
 * <p>Thread: the loop thread.
 */
public interface StreamBody {
    /**
     * Takes what it can of the body bytes {@code [from, from+length)} of {@code b} (a view valid only
     * during the call: the frame's payload in the connection's input, or the stream's held bytes);
     * returns how many it took, from the front. What it does not take the stream keeps, in order, and
     * offers again once the sink reports bytes consumed. The body ends at END_STREAM ({@link #ended}),
     * with or without a {@code content-length} (checked against the DATA by the connection): trailers
     * may follow the last byte.
     */
    int offer(ByteBuffer b, int from, int length);

    /**
     * END_STREAM (DATA or trailers): {@code total} bytes were received in all. The sink ends the body
     * once it has taken that many (now, or as the bytes the stream holds are offered again).
     */
    void ended(long total);

    /** The trailing HEADERS (name, value...; checked, RFC 9113 §8.1), just before their END_STREAM ({@link #ended}). */
    void trailers(String[] namesAndValues);

    /** Trailing HEADERS past the header list size (RFC 9113 §6.5.2): the body is refused with 431. */
    void trailersTooLarge();

    /**
     * The stream ended before its body did (RST_STREAM from the client, a stream error, the connection
     * closed): the handler hears it as over HTTP/1.1 on a lost connection (its body stream throws; a
     * listener hears nothing more). Harmless after the body ended.
     */
    void abort();
}
