package dev.peregrine.client;

import dev.peregrine.http1.ChunkedDecoder;
import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.Connection;

import java.nio.ByteBuffer;

/**
 * One response handed to a {@link ResponseBodyListener} as it arrives: the head through
 * {@link ResponseReader#readHead}, then the body consumed piece by piece, so the connection holds at
 * most a partial chunk-size line between reads.
 * <pre>
 *   HEAD --head whole--&gt; listener.onHead --&gt; LENGTH:      onData per arrival, until Content-Length bytes
 *                                           CHUNKED:     ChunkedDecoder in place, onData per decoded run,
 *                                                        what it read dropped (consumeDecoded) until the last chunk
 *                                           UNTIL_CLOSE: onData per arrival, until FIN
 *                                           NONE:        done
 * </pre>
 * Thread: the connection's loop.
 */
final class ResponseStream implements ResponseBodyListener.ReadValve {
    /** {@link #onInput}'s answer besides an index: the response failed, the reason is in {@link #error}. */
    static final int FAILED = -1;

    private final ResponseReader reader;
    private final ResponseBodyListener listener;
    private final Connection c;
    private ChunkedDecoder chunked;
    private ClientResponse head;
    private long remaining;
    private boolean done;
    private boolean paused;
    private String error;
    private ClientException.Phase phase;
    private Throwable cause;

    ResponseStream(ResponseReader reader, ResponseBodyListener listener, Connection c) {
        this.reader = reader;
        this.listener = listener;
        this.c = c;
    }

    /** The head, once read (its body empty). */
    ClientResponse head() {
        return head;
    }

    /** Whether the whole response has arrived. */
    boolean done() {
        return done;
    }

    /** Whether the listener paused reading. */
    boolean paused() {
        return paused;
    }

    /**
     * The response is complete: a pause the listener asked for during its last piece is lifted (the
     * connection goes back to the pool and must read again), and the valve does nothing from now on.
     * Returns whether reading was paused.
     */
    boolean endPause() {
        boolean was = paused;
        paused = false;
        done = true;
        return was;
    }

    String error() {
        return error;
    }

    /** The phase of the failure, after {@link #FAILED} or a false {@link #atEndOfInput()}. */
    ClientException.Phase phase() {
        return phase;
    }

    Throwable cause() {
        return cause;
    }

    /** Takes what it can of {@code [start, end)}; returns where it stopped, or {@link #FAILED}. */
    int onInput(ByteBuffer buf, int start, int end) {
        int pos = start;
        if (head == null) {
            int r = reader.readHead(buf, pos, end);
            if (r == ResponseReader.NEED_MORE) {
                return reader.responseStart(); // interim responses before it are consumed
            }
            if (r == ResponseReader.ERROR) {
                return fail(ClientException.phaseOf(reader.failure()), reader.error(), null);
            }
            head = new ClientResponse(reader.status(), reader.reason(), reader.namesCopy(), reader.valuesCopy(), new byte[0]);
            pos = r;
            int framing = reader.bodyFraming();
            remaining = framing == ResponseReader.BODY_LENGTH ? reader.contentLength() : Long.MAX_VALUE;
            if (framing == ResponseReader.BODY_CHUNKED) {
                chunked = new ChunkedDecoder();
                chunked.start(0);
            }
            try {
                listener.onHead(head, this);
            } catch (Exception e) {
                return fail(ClientException.Phase.RESPONSE, "response body listener failed: " + e, e);
            }
            if (framing == ResponseReader.BODY_NONE || framing == ResponseReader.BODY_LENGTH && remaining == 0) {
                done = true;
                return pos;
            }
        }
        return chunked != null ? chunks(buf, pos, end) : plain(buf, pos, end);
    }

    private int plain(ByteBuffer buf, int pos, int end) {
        int n = (int) Math.min(remaining, end - pos);
        if (n > 0 && !deliver(buf, pos, pos + n)) {
            return FAILED;
        }
        remaining -= n;
        done = remaining == 0;
        return pos + n;
    }

    private int chunks(ByteBuffer buf, int base, int end) {
        int r = chunked.decode(buf, base, end, Long.MAX_VALUE, 16 * 1024);
        if (r < ChunkedDecoder.NEED_MORE) {
            return fail(ClientException.Phase.RESPONSE, "malformed chunked body (" + -r + ")", null);
        }
        int from = base + chunked.bodyStartRel();
        int to = base + chunked.decodedEndRel();
        if (to > from && !deliver(buf, from, to)) {
            return FAILED;
        }
        if (r >= 0) {
            done = true;
            return base + r;
        }
        return base + chunked.consumeDecoded();
    }

    private boolean deliver(ByteBuffer buf, int from, int to) {
        ByteBuffer piece = buf.duplicate().position(from).limit(to).asReadOnlyBuffer();
        try {
            listener.onData(piece);
            return true;
        } catch (Exception e) {
            fail(ClientException.Phase.RESPONSE, "response body listener failed: " + e, e);
            return false;
        }
    }

    /** The server closed the connection: a body read until close is complete; anything else is cut short. */
    boolean atEndOfInput() {
        if (head != null && reader.bodyFraming() == ResponseReader.BODY_UNTIL_CLOSE) {
            done = true;
            return true;
        }
        fail(ClientException.Phase.CLOSED, head == null ? "connection closed before the response head was complete"
                : "connection closed in the middle of the body", null);
        return false;
    }

    private int fail(ClientException.Phase phase, String why, Throwable t) {
        this.phase = phase;
        error = why;
        cause = t;
        return FAILED;
    }

    @Override
    public void pause() {
        if (c.context().eventLoop().inEventLoop()) {
            if (!paused && !done) {
                paused = true;
                c.pauseReading();
            }
        } else {
            c.context().eventLoop().execute(this::pause);
        }
    }

    @Override
    public void resume() {
        if (c.context().eventLoop().inEventLoop()) {
            if (paused) {
                paused = false;
                c.resumeInput(); // offers what was held, turns reading back on
            }
        } else {
            c.context().eventLoop().execute(this::resume);
        }
    }
}
