package dev.peregrine.offloop;

import dev.peregrine.BodyListener;
import dev.peregrine.RequestBodyException;
import dev.peregrine.http1.ChunkedDecoder;
import dev.peregrine.loop.Connection;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An incoming request body handed to its handler as it arrives (the request-side twin of
 * {@link BodySource}): one with a Content-Length above {@code streamBodyThreshold}, or one without a
 * length (HTTP/1.1 chunked, HTTP/2 without {@code content-length}), read by a blocking handler through
 * {@link dev.peregrine.Request#bodyStream()} or by a {@code Handlers.streaming} listener.
 *
 * <pre>
 *   loop                                         handler thread
 *   socket -&gt; read buffer -&gt; copy into a chunk  --&gt; 'filled' --&gt; read() ... chunk consumed
 *   from 'free'; none free: stop reading (OP_READ  &lt;-- 'free' &lt;--  give it back; if the loop stopped
 *   off) until one comes back                                    reading, ask it to resume
 * </pre>
 * At most {@link #CHUNKS} chunks of {@link #CHUNK_SIZE} bytes exist per body, so memory stays bounded
 * whatever its size. The loop reads no further than the body's end, so bytes of a request pipelined
 * behind it stay in the socket until the connection takes the next request.
 *
 * <p>For an inline handler ({@code Handlers.streaming}) there are no chunks and no queue: each read's
 * bytes go straight to its {@link BodyListener} on the loop, and the next read waits until the
 * listener has returned. A listener that throws ends the exchange with 500 (unless it already
 * completed) and the rest of the body is discarded.
 *
 * <p>Stop protocol: the loop sets {@code paused} (volatile) and then polls {@code free} once more; the
 * reader offers to {@code free} and then reads {@code paused}. One of them sees the other, so reading
 * never stays off while a chunk is free.
 *
 * <p><b>Over HTTP/2</b> ({@code server.Http2StreamWork} as the host, a {@link StreamHost}) nothing is
 * read from the socket: the stream {@link #offer}s each DATA payload. A listener takes it whole; a
 * blocking handler's chunks take what they can (the stream holds the rest), and every chunk given back
 * is reported to the host ({@link StreamHost#bodyConsumed}, from a loop task), which reopens the
 * stream's flow-control window by as much: a slow handler holds its client to one window of bytes.
 *
 * <p><b>Unknown length</b> ({@link #UNKNOWN_LENGTH}): {@code remaining} starts at {@code Long.MAX_VALUE}
 * and counts down as for a known length, until the end is known. Over HTTP/1.1 the socket's bytes go
 * through the chunked decoder ({@link #decodeWith}, RFC 9112 §7.1) and only the decoded chunk data is
 * handed over (size lines, extensions and trailers are the decoder's, checked as for a gathered body;
 * the trailer fields reach the request and a listener's {@code onTrailers} at the end); bytes read past
 * the last chunk's CRLF belong to the next request and are given back to the connection
 * ({@link Connection#holdInput}). Over HTTP/2 END_STREAM tells the total
 * ({@link #lengthKnown}), and the body ends once the stream's held bytes are all offered. The running
 * total is bounded by {@code maxStreamedBodySize}; past it, or on broken chunk framing, the body is
 * refused ({@link #refuse}): the handler's reads throw {@link RequestBodyException} (413 or 400) after
 * the bytes before it, a listener's exchange is answered with that status; nothing more is read (over
 * HTTP/1.1 the connection closes after the answer; over HTTP/2 the stream's window stays shut and the
 * answer resets the stream, RFC 9113 §8.1).
 * <pre>
 *   STREAMING --all bytes arrived--&gt; ENDED (END chunk / listener.onEnd)
 *      |  \--abort (handler done, connection closed)--&gt; DISCARDING (ABORT chunk; rest read and dropped)
 *      \--past maxStreamedBodySize / bad chunk framing--&gt; REFUSED (failure after the bytes; nothing read)
 * </pre>
 *
 * <p>Thread: {@link #feed}, {@link #offer}, {@link #onReadable}, {@link #abort} on the loop; the {@link InputStream}
 * methods on the handler's thread.
 */
public final class IncomingBody extends InputStream {
    static final int CHUNK_SIZE = 64 * 1024;
    static final int CHUNKS = 4;
    /** The {@code length} of a body whose end the framing tells (chunked, END_STREAM) rather than a length. */
    public static final long UNKNOWN_LENGTH = -2;

    private final OffLoopHost conn;
    private final Exchange exchange;
    private final ArrayBlockingQueue<Chunk> free = new ArrayBlockingQueue<>(CHUNKS);
    private final ArrayBlockingQueue<Chunk> filled = new ArrayBlockingQueue<>(2 * CHUNKS + 2);
    private final AtomicBoolean resumeScheduled = new AtomicBoolean();
    private final Runnable resume = this::resume;
    /** The inline handler's listener, or null for a blocking handler's {@link InputStream}. */
    private final BodyListener listener;
    private final boolean inline;
    /**
     * An HTTP/2 stream's body ({@link StreamHost}): DATA is {@link #offer}ed, never read from the socket,
     * and what the handler consumes is reported to the host ({@link StreamHost#bodyConsumed}), which
     * reopens the stream's window: the backpressure that pausing reads gives over HTTP/1.1.
     */
    private final StreamHost stream;
    private volatile boolean paused;
    /** Handler thread writes (its only writer), the loop reads: bytes of chunks given back so far. */
    private volatile long consumedBytes;
    /** Loop: {@link #consumedBytes} already reported to the {@link #stream} host. */
    private long reported;

    /** The refusal the handler's reads throw after the bytes before it ({@link #refuse}); null otherwise. */
    private volatile RequestBodyException failure;

    // Loop.
    /** Bytes still to come; for an unknown length {@code Long.MAX_VALUE} less what was taken, until {@link #lengthKnown}. */
    private long remaining;
    private final boolean unknown;
    /** maxStreamedBodySize: the running total an unknown length may reach. */
    private final long limit;
    /** HTTP/1.1 chunked: the decoder, from the framer's first bytes on ({@link #decodeWith}); null otherwise. */
    private ChunkedDecoder chunked;
    private int maxTrailers;
    /** The trailer fields that ended the body (name, value...), set on the loop before {@link #end}; null when none. */
    private String[] trailerFields;
    /** HTTP/2, unknown length: bytes offered so far (counted against {@link #limit}). */
    private long offered;
    private boolean refused;
    private int created;
    private boolean ended;
    private boolean discarding;

    // Handler thread.
    private Chunk current;
    private boolean eof;

    IncomingBody(OffLoopHost conn, Exchange exchange, long length) {
        this(conn, exchange, length, null, false);
    }

    /** A body for an inline handler: {@code listener} gets the bytes; null discards them. */
    public IncomingBody(OffLoopHost conn, Exchange exchange, long length, BodyListener listener, boolean inline) {
        this.conn = conn;
        this.exchange = exchange;
        this.unknown = length < 0;
        this.remaining = unknown ? Long.MAX_VALUE : length;
        this.limit = conn.httpLoop().config().maxStreamedBodySize();
        this.listener = listener;
        this.inline = inline;
        this.discarding = inline && listener == null;
        this.stream = conn instanceof StreamHost ? (StreamHost) conn : null;
    }

    /**
     * Loop, HTTP/2: offers the body bytes {@code [from, from+length)} of {@code b} (a DATA payload, or
     * bytes the stream held); returns how many were taken. A listener takes all of them (they are
     * consumed when it returns); a blocking handler's stream takes what its free chunks hold (at most
     * {@link #CHUNKS}), the rest waiting in the stream until chunks come back. After an abort, or with
     * nobody listening, the bytes are dropped (and count as consumed, so the client may finish).
     */
    public int offer(ByteBuffer b, int from, int length) {
        if (unknown && !refused) {
            offered += length;
            if (offered > limit) {
                refuse(413, "request body passed maxStreamedBodySize (" + limit + " bytes)");
            }
        }
        if (refused) {
            return length; // dropped, and never given back: the stream's window stays shut until the answer resets it
        }
        if (inline || discarding) {
            remaining -= length;
            if (!ended) {
                deliver(b, from, length);
            }
            if (exchange != null) {
                exchange.touch();
            }
            if (remaining == 0) {
                end();
            }
            stream.bodyConsumed(length, false); // inside the connection's input: its batch carries the update
            return length;
        }
        int took = 0;
        while (took < length) {
            Chunk c = free.poll();
            if (c == null && created < CHUNKS) {
                created++;
                c = new Chunk(CHUNK_SIZE);
            }
            if (c == null) {
                break; // the stream holds the rest until the handler gives a chunk back
            }
            int n = Math.min(length - took, c.data.length);
            b.get(from + took, c.data, 0, n);
            put(c, n);
            took += n;
        }
        if (took > 0) {
            exchange.touch();
        }
        if (remaining == 0) {
            end();
        }
        return took;
    }

    /** Loop: whether every byte of the body has arrived. */
    public boolean complete() {
        return remaining == 0;
    }

    /**
     * Loop, HTTP/1.1 chunked: the body's bytes from the socket go through {@code decoder}, which has
     * decoded those that came with the head ({@link ChunkedDecoder#consumeDecoded} called, its running
     * total counted against maxStreamedBodySize); trailers are bounded by {@code maxTrailers}.
     */
    public void decodeWith(ChunkedDecoder decoder, int maxTrailers) {
        this.chunked = decoder;
        this.maxTrailers = maxTrailers;
    }

    /** Loop, unknown length: every byte has been handed over ({@link #feed}); the body ends. */
    public void arrived() {
        if (chunked != null) {
            trailerFields = chunked.trailerFields(); // HTTP/1.1: the last chunk's trailer section
        }
        remaining = 0;
        end();
    }

    /** Loop, HTTP/2: the trailing HEADERS (name, value...), before their END_STREAM ({@link #lengthKnown}). */
    public void trailers(String[] namesAndValues) {
        trailerFields = namesAndValues;
    }

    /**
     * Loop, HTTP/2 unknown length: END_STREAM came after {@code total} body bytes; the body ends once
     * all of them were offered (now, or when the stream's held bytes have moved on).
     */
    public void lengthKnown(long total) {
        if (!unknown || refused || ended) {
            return;
        }
        remaining -= Long.MAX_VALUE - total; // what the stream still holds
        if (remaining == 0) {
            end();
        }
    }

    /**
     * Loop: the body is refused with {@code status} (413: past maxStreamedBodySize; 400: broken chunk
     * framing; 431: HTTP/2 trailers past the header list size): a blocking handler's reads throw
     * {@link RequestBodyException} after the bytes before it, a listener's exchange is answered
     * {@code status} (unless it completed); nothing more is read. Over
     * HTTP/1.1 the connection closes once it has answered, as the rest of the body cannot be skipped.
     */
    public void refuse(int status, String message) {
        if (refused || ended) {
            return;
        }
        refused = true;
        RequestBodyException e = new RequestBodyException(status, message);
        boolean quiet = discarding;
        discarding = true;
        if (inline) {
            if (!quiet && exchange != null) {
                exchange.fail(e); // answered 400/413 (DEBUG), unless the handler had completed
            }
        } else if (!quiet) {
            failure = e;
            filled.offer(Chunk.ABORT); // behind the bytes already queued (the queue has room for it)
        }
        if (stream == null) {
            Connection io = conn.connection();
            io.readInterest(false);
            io.closeAfterOutput(); // after the answer (the exchange's, or now if none is coming)
            io.flush();
        }
    }

    /** Loop: hands over {@code [from, from+length)} of {@code b}, bytes that came with the head. */
    public void feed(ByteBuffer b, int from, int length) {
        if (inline) {
            remaining -= length;
            deliver(b, from, length);
            if (remaining == 0) {
                end();
            }
            return;
        }
        while (length > 0) {
            Chunk c = takeFree();
            int n = Math.min(length, c.data.length);
            b.get(from, c.data, 0, n);
            put(c, n);
            from += n;
            length -= n;
        }
        if (remaining == 0) {
            end();
        }
    }

    /** Loop: the socket is readable. Reads while chunks are free and the body is not complete. */
    public void onReadable(Connection io, ByteBuffer scratch) throws IOException {
        if (chunked != null) {
            readChunked(io, scratch);
            return;
        }
        while (remaining > 0) {
            if (discarding || inline) {
                scratch.clear();
                scratch.limit((int) Math.min(scratch.capacity(), remaining));
                int n = io.read(scratch);
                if (n <= 0) {
                    if (n < 0) {
                        conn.connection().close();
                    }
                    return;
                }
                remaining -= n;
                if (inline) {
                    conn.httpLoop().loop().metrics().bytesIn += n;
                    deliver(scratch, 0, n);
                    if (exchange != null) {
                        exchange.touch();
                    }
                }
                continue;
            }
            Chunk c = freeChunk(io);
            if (c == null) {
                return;
            }
            scratch.clear();
            scratch.limit((int) Math.min(Math.min(scratch.capacity(), c.data.length), remaining));
            int n = io.read(scratch);
            if (n <= 0) {
                free.offer(c);
                if (n < 0) {
                    conn.connection().close();
                }
                return;
            }
            conn.httpLoop().loop().metrics().bytesIn += n;
            scratch.get(0, c.data, 0, n);
            put(c, n);
            exchange.touch();
        }
        end();
    }

    /**
     * A chunk to read into: a free one, or a new one while fewer than {@code CHUNKS} exist. Null when
     * all are with the handler: reading stops ({@code paused}, read interest off) until one comes back
     * (the stop protocol in the class comment).
     */
    private Chunk freeChunk(Connection io) {
        Chunk c = free.poll();
        if (c == null && created < CHUNKS) {
            created++;
            c = new Chunk(CHUNK_SIZE);
        }
        if (c == null) {
            paused = true;
            c = free.poll();
            if (c == null) {
                io.readInterest(false);
                return null;
            }
            paused = false;
        }
        return c;
    }

    /**
     * {@link #onReadable} for a chunked body: each read is decoded in place and its chunk data handed
     * over (to a free chunk, or the listener); reading stops, as for a known length, while no chunk is
     * free. A read that reaches past the last chunk gives the rest back to the connection.
     */
    private void readChunked(Connection io, ByteBuffer scratch) throws IOException {
        while (!ended && !refused) {
            Chunk c = null;
            if (!discarding && !inline) {
                c = freeChunk(io);
                if (c == null) {
                    return;
                }
            }
            scratch.clear();
            if (c != null) {
                scratch.limit(Math.min(scratch.capacity(), c.data.length)); // decoded bytes are never more than read ones
            }
            int n = io.read(scratch);
            if (n <= 0) {
                if (c != null) {
                    free.offer(c);
                }
                if (n < 0) {
                    conn.connection().close();
                }
                return;
            }
            conn.httpLoop().loop().metrics().bytesIn += n;
            int r = chunked.decode(scratch, 0, n, limit, maxTrailers);
            if (r < ChunkedDecoder.NEED_MORE) {
                if (c != null) {
                    free.offer(c);
                }
                refuse(-r == 413 ? 413 : 400, -r == 413 ? "request body passed maxStreamedBodySize (" + limit + " bytes)"
                        : "malformed chunked request body (" + -r + ")");
                return;
            }
            int from = chunked.bodyStartRel();
            int len = chunked.decodedEndRel() - from;
            if (len > 0) {
                if (c != null) {
                    scratch.get(from, c.data, 0, len);
                    put(c, len);
                    c = null;
                } else {
                    remaining -= len;
                    deliver(scratch, from, len);
                }
                if (exchange != null) {
                    exchange.touch();
                }
            }
            if (c != null) {
                free.offer(c);
            }
            if (r >= 0) {
                if (r < n) {
                    io.holdInput(scratch, r, n); // the next request's first bytes
                }
                arrived();
                return;
            }
            chunked.consumeDecoded();
        }
    }

    private Chunk takeFree() {
        Chunk c = free.poll();
        if (c == null) {
            created++; // more than CHUNKS only if the head arrived with more than CHUNKS chunks of body
            c = new Chunk(CHUNK_SIZE);
        }
        return c;
    }

    private void put(Chunk c, int n) {
        c.length = n;
        c.read = 0;
        remaining -= n;
        filled.add(c);
    }

    private void end() {
        if (!ended) {
            ended = true;
            if (trailerFields != null && exchange != null) { // before END: its reader sees them (the queue orders it)
                exchange.request().setTrailers(trailerFields);
            }
            if (inline) {
                if (!discarding) {
                    try {
                        if (trailerFields != null) {
                            listener.onTrailers(exchange.request().trailers());
                        }
                        listener.onEnd();
                    } catch (Throwable t) {
                        exchange.fail(t);
                    }
                }
            } else {
                filled.add(Chunk.END);
            }
            conn.bodyInEnded(this);
        }
    }

    /** Loop: hands {@code [from, from+length)} of {@code b} to the inline listener, unless discarding. */
    private void deliver(ByteBuffer b, int from, int length) {
        if (discarding || length == 0) {
            return;
        }
        try {
            listener.onData(b.slice(from, length).asReadOnlyBuffer());
        } catch (Throwable t) {
            discarding = true;
            exchange.fail(t); // answered 500 unless the handler had completed; the rest is dropped
        }
    }

    /**
     * Loop: the handler is done with the body (it completed, failed or timed out) or the connection
     * closed. A reader still waiting gets an {@link IOException}; the rest of the body, if the
     * connection stays open, is read and dropped so it is never taken for a request.
     */
    public void abort() {
        if (!ended && !refused) {
            discarding = true;
            filled.clear();
            filled.offer(Chunk.ABORT);
            if (paused && stream == null) {
                paused = false;
                conn.connection().readInterest(true);
            }
        }
    }

    private void resume() {
        resumeScheduled.set(false);
        if (stream != null) { // HTTP/2: what the handler consumed reopens the stream's window, held DATA moves on
            long c = consumedBytes;
            int n = (int) (c - reported);
            reported = c;
            if (n > 0 && !discarding) {
                stream.bodyConsumed(n, true);
            }
            return;
        }
        if (paused && conn.bodyIn() == this) {
            paused = false;
            conn.connection().readInterest(true);
            conn.connection().onReadable();
        }
    }

    // ---- handler thread ----

    @Override
    public int read() throws IOException {
        Chunk c = next();
        if (c == null) {
            return -1;
        }
        int b = c.data[c.read++] & 0xFF;
        consumed(c);
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        Chunk c = next();
        if (c == null) {
            return -1;
        }
        int n = Math.min(len, c.length - c.read);
        System.arraycopy(c.data, c.read, b, off, n);
        c.read += n;
        consumed(c);
        return n;
    }

    @Override
    public int available() {
        Chunk c = current;
        return c == null ? 0 : c.length - c.read;
    }

    private Chunk next() throws IOException {
        if (eof) {
            return null;
        }
        if (current == null) {
            Chunk c;
            try {
                c = filled.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the request body");
            }
            if (c == Chunk.END) {
                eof = true;
                return null;
            }
            if (c == Chunk.ABORT) {
                filled.offer(Chunk.ABORT);
                RequestBodyException f = failure;
                if (f != null) {
                    throw new RequestBodyException(f.status(), f.getMessage()); // thrown anew: each with this read's stack
                }
                throw new IOException("request body aborted: the connection closed or the exchange ended");
            }
            current = c;
        }
        return current;
    }

    private void consumed(Chunk c) {
        if (c.read < c.length) {
            return;
        }
        current = null;
        if (stream != null) {
            consumedBytes += c.length; // this thread alone writes it
            free.offer(c);
            if (resumeScheduled.compareAndSet(false, true)) {
                exchange.loop().execute(resume);
            }
            return;
        }
        free.offer(c);
        if (paused && resumeScheduled.compareAndSet(false, true)) {
            exchange.loop().execute(resume);
        }
    }
}
