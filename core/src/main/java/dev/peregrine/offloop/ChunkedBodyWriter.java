package dev.peregrine.offloop;

import dev.peregrine.http1.ChunkFraming;
import dev.peregrine.loop.Connection;

import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@link OutputStream} of a streamed response ({@link dev.peregrine.Response#outputStream()}):
 * the handler's thread fills {@link Chunk}s, the loop frames them (RFC 9112 §7.1:
 * {@code hex-size CRLF data CRLF}, ending {@code 0 CRLF CRLF}) and writes them.
 *
 * <pre>
 *   handler thread                          loop
 *   write() fills a chunk from 'free'  --&gt;  'filled' --&gt; pump(): frame, copy to the connection's output,
 *   (blocks while 'free' is empty)    &lt;--  'free'       give the chunk back (only while the unsent
 *                                                      output is under maxPendingOutput)
 * </pre>
 * At most {@link #CHUNKS} chunks of {@link #CHUNK_SIZE} bytes exist, so the writer blocks — that is the
 * backpressure — once they all wait for a connection whose unsent output is over its limit. The first
 * chunk handed over commits the head ({@link Exchange#commitOutputStream}); before that a failure can still
 * become a 500. To an HTTP/1.0 client the body goes unframed and the connection closes after it.
 *
 * <p>Thread: {@code write}, {@code flush}, {@code close} from the handler's thread (one at a time);
 * {@link #run}, {@link #pump} and {@link #abort} on the loop.
 */
final class ChunkedBodyWriter extends OutputStream implements BodySource, Runnable {
    static final int CHUNK_SIZE = 32 * 1024;
    static final int CHUNKS = 4;
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = {'0', '\r', '\n', '\r', '\n'};

    private final Exchange exchange;
    private final ArrayBlockingQueue<Chunk> free = new ArrayBlockingQueue<>(CHUNKS + 1);
    private final ArrayBlockingQueue<Chunk> filled = new ArrayBlockingQueue<>(CHUNKS + 2);
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean aborted;

    // Handler thread.
    private int created;
    private Chunk current;
    private boolean closed;

    // Loop.
    private boolean headSent;
    /** Whether the body is framed as chunks (false for HTTP/1.0, HEAD, 204, 304). */
    private boolean framed;
    /** Whether body bytes are sent at all (false for HEAD, 1xx, 204, 304). */
    private boolean bodyAllowed;
    private final byte[] sizeLine = new byte[10];
    /** The coding the chunks go through (each compressed and flushed on its own), or null. */
    private CompressedChunks compressed;

    ChunkedBodyWriter(Exchange exchange) {
        this.exchange = exchange;
    }

    @Override
    public void write(int b) throws IOException {
        Chunk c = chunk();
        c.data[c.length++] = (byte) b;
        if (c.length == c.data.length) {
            submit();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            Chunk c = chunk();
            int n = Math.min(len, c.data.length - c.length);
            System.arraycopy(b, off, c.data, c.length, n);
            c.length += n;
            off += n;
            len -= n;
            if (c.length == c.data.length) {
                submit();
            }
        }
    }

    @Override
    public void flush() throws IOException {
        check();
        if (current != null && current.length > 0) {
            submit();
        }
    }

    /** Ends the body. The response is complete once the loop has written it. Idempotent. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        flush();
        closed = true;
        filled.add(Chunk.END);
        schedule();
    }

    /** Ends the body if the handler left it open (handler thread, as the exchange completes); never throws. */
    void finish() {
        try {
            close();
        } catch (IOException e) {
            // aborted: the loop has already given up on this body
        }
    }

    private Chunk chunk() throws IOException {
        check();
        if (closed) {
            throw new IOException("response body already closed");
        }
        if (current == null) {
            Chunk c = free.poll();
            if (c == null && created < CHUNKS) {
                created++;
                c = new Chunk(CHUNK_SIZE);
            }
            if (c == null) {
                try {
                    c = free.take(); // backpressure: the loop gives chunks back as the socket drains
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while the client was slow");
                }
            }
            if (c == Chunk.ABORT) {
                free.offer(Chunk.ABORT); // keep waking whoever waits next
                throw new IOException("response aborted: the connection closed or the exchange timed out");
            }
            c.length = 0;
            current = c;
        }
        return current;
    }

    private void check() throws IOException {
        if (aborted) {
            throw new IOException("response aborted: the connection closed or the exchange timed out");
        }
    }

    private void submit() {
        filled.add(current);
        current = null;
        schedule();
    }

    private void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            exchange.loop().execute(this);
        }
    }

    /** Loop: chunks arrived. Commits the head on the first, then lets the connection pump. */
    @Override
    public void run() {
        scheduled.set(false);
        if (aborted) {
            return;
        }
        if (!headSent) {
            if (!exchange.commitOutputStream(this)) {
                abort();
                return;
            }
            headSent = true;
        }
        exchange.connection().pumpBody();
    }

    /** Loop: called by {@link Exchange#commitOutputStream} once the head is written ({@code compressed} may be null). */
    void headWritten(boolean framed, boolean bodyAllowed, CompressedChunks compressed) {
        this.framed = framed;
        this.bodyAllowed = bodyAllowed;
        this.compressed = compressed;
    }

    /** Loop: whether the head has left, after which a failure can only close the connection. */
    boolean headSent() {
        return headSent;
    }

    @Override
    public boolean pump(Connection c) {
        int limit = c.context().config().maxPendingOutput();
        while (c.pendingOutput() <= limit) {
            Chunk k = filled.poll();
            if (k == null) {
                return false;
            }
            if (k == Chunk.END) {
                if (compressed != null) {
                    compressed.end(c);
                }
                if (framed && bodyAllowed) {
                    c.append(LAST_CHUNK, 0, LAST_CHUNK.length);
                }
                return true;
            }
            if (compressed != null && k.length > 0) {
                compressed.piece(c, k.data, 0, k.length);
            } else if (bodyAllowed && k.length > 0) {
                if (framed) {
                    int n = ChunkFraming.sizeLine(sizeLine, k.length);
                    c.append(sizeLine, sizeLine.length - n, n);
                }
                c.append(k.data, 0, k.length);
                if (framed) {
                    c.append(CRLF, 0, 2);
                }
            }
            k.length = 0;
            free.offer(k);
            exchange.touch();
        }
        return false;
    }

    /**
     * Gives up: a blocked or later write throws {@link IOException}. Called on the loop (every caller
     * is), which also gives a compressed body's encoder back.
     */
    @Override
    public void abort() {
        if (compressed != null) {
            compressed.release();
        }
        if (!aborted) {
            aborted = true;
            free.offer(Chunk.ABORT);
            filled.clear();
        }
    }
}
