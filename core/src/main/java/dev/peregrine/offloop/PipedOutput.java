package dev.peregrine.offloop;

import dev.peregrine.exchange.WaitingProducer;
import dev.peregrine.loop.EventLoop;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * {@code res.outputStream()} on a stream of a multiplexed connection ({@link StreamHost}, HTTP/2):
 * the handler's thread writes into a ring of {@link #CAPACITY} bytes, and the stream pulls the ring
 * on the loop as a {@link WaitingProducer}, a DATA frame at a time, only while the peer's windows
 * allow and the connection has no unsent output. A full ring blocks the writer (off the loop), so a
 * peer that opens no window holds at most this ring and the connection's backlog, whatever the
 * handler writes.
 * <pre>
 *   writer (handler's thread)                          loop
 *   first write/flush/close --post--&gt;         Exchange.commitPipe: HEADERS, the stream pulls this
 *   write: ring full? wait   &lt;--notify--     produce(): ring -&gt; DATA (windows, socket allowing)
 *   ring was empty       --post wake--&gt;     the stream's pump (it stops on an empty ring)
 *   close()              --post wake--&gt;     last piece with END_STREAM
 *   handler threw, timeout      fail(t)      produce() throws: RST_STREAM INTERNAL_ERROR, one WARNING
 *   stream reset / closed       abort()      the writer's next write throws IOException
 *   HEAD, 204, 304              discard()    writes are dropped
 * </pre>
 * Thread: writes and close on the handler's thread (one at a time); the rest on the loop; the ring
 * under this object's monitor.
 */
final class PipedOutput extends OutputStream implements WaitingProducer {
    /** The ring's size: four DATA frames of RFC 9113's default SETTINGS_MAX_FRAME_SIZE. */
    static final int CAPACITY = 64 * 1024;

    private final Exchange exchange;
    private final EventLoop loop;
    private final Runnable wakeTask = this::wake;
    private final byte[] ring = new byte[CAPACITY];
    /** {@link #write(int)}'s byte; under this object's monitor. */
    private final byte[] one = new byte[1];
    private int first;
    private int count;
    private boolean closed;
    private boolean aborted;
    private boolean discarded;
    private Throwable failure;
    private boolean commitPosted;
    private boolean wakePosted;

    PipedOutput(Exchange exchange, EventLoop loop) {
        this.exchange = exchange;
        this.loop = loop;
    }

    // ---------------------------------------------------------------- the handler's thread

    /** One byte at a time (a writer without a buffer of its own): no array per call. */
    @Override
    public synchronized void write(int b) throws IOException {
        one[0] = (byte) b;
        write(one, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        commit();
        while (len > 0) {
            check();
            if (discarded) {
                return;
            }
            if (count == CAPACITY) {
                try {
                    wait(); // the loop takes from the ring as the peer's windows open
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while the peer's window was closed");
                }
                continue;
            }
            boolean wasEmpty = count == 0;
            int at = (first + count) % CAPACITY;
            int n = Math.min(len, Math.min(CAPACITY - count, CAPACITY - at));
            System.arraycopy(b, off, ring, at, n);
            count += n;
            off += n;
            len -= n;
            if (wasEmpty) {
                postWake(); // the loop stopped pulling on an empty ring
            }
        }
    }

    @Override
    public synchronized void flush() throws IOException {
        check();
        commit(); // the head leaves now; bytes leave as soon as they are written anyway
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        commit();
        postWake();
    }

    private void check() throws IOException {
        if (aborted) {
            throw new IOException(failure != null ? "response stream ended: " + failure : "HTTP/2 stream reset or connection closed");
        }
        if (closed) {
            throw new IOException("output stream closed");
        }
    }

    private void commit() {
        if (!commitPosted) {
            commitPosted = true;
            loop.execute(exchange::commitPipe);
        }
    }

    private void postWake() {
        if (!wakePosted) {
            wakePosted = true;
            loop.execute(wakeTask);
        }
    }

    // ---------------------------------------------------------------- loop

    private void wake() {
        synchronized (this) {
            wakePosted = false;
        }
        exchange.pumpPipe();
    }

    @Override
    public synchronized boolean ready() {
        return count > 0 || closed || failure != null;
    }

    @Override
    public boolean produce(ByteBuffer dst) throws Exception {
        synchronized (this) {
            if (failure != null) {
                throw failure instanceof Exception ? (Exception) failure : new IOException(failure);
            }
            int n = Math.min(count, dst.remaining());
            int head = Math.min(n, CAPACITY - first);
            dst.put(ring, first, head);
            dst.put(ring, 0, n - head);
            first = (first + n) % CAPACITY;
            count -= n;
            if (n > 0) {
                notifyAll();
            }
            if (!(closed && count == 0)) {
                if (n > 0) {
                    exchange.touch(); // progress: the exchange's timeout starts again
                }
                return true;
            }
            return false;
        }
    }

    @Override
    public synchronized void discard() {
        discarded = true;
        count = 0;
        notifyAll();
    }

    @Override
    public synchronized void abort() {
        if (discarded) {
            return; // HEAD, 204, 304: the stream ended as it should, the writer's bytes still go nowhere
        }
        aborted = true;
        notifyAll();
    }

    /** Loop: the handler failed, or its timeout passed, after the head left: the stream is reset (produce throws). */
    synchronized void fail(Throwable t) {
        failure = t;
        aborted = true;
        notifyAll();
        postWake();
    }

    /** Whether the handler's first write, flush or close asked the loop to send the head. */
    synchronized boolean committed() {
        return commitPosted;
    }
}
