package dev.peregrine.tls.engine;

import dev.peregrine.buffer.BufferPool;
import dev.peregrine.loop.SocketEndpoint;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The three buffers of one TLS connection and the byte work on them, lent by the loop's
 * {@link BufferPool} only while they hold bytes, so that an idle TLS connection holds none:
 *
 * <pre>
 *   socket --fill--&gt; netIn (ciphertext, read mode) --engine.unwrap--&gt; connection's buffer
 *                                                    \--(record larger than its room)--&gt; appIn --drainStaged--&gt;
 *   connection's batch --wrap--&gt; netOut (records, read mode) --flush--&gt; socket
 * </pre>
 * {@code netIn} is kept only while a record is incomplete, {@code netOut} while the socket has not
 * taken all records, {@code appIn} until the connection has read the staged plaintext. Each grows
 * (a bigger buffer from the pool) when a record or the session's sizes need it. {@link TlsEndpoint}
 * decides what the engine does; this class only moves bytes.
 *
 * <p>Thread: the owning loop.
 */
final class TlsBuffers {
    /** Most plaintext one write encrypts into one send buffer before writing, bytes. */
    private static final int MAX_BATCH = 64 * 1024;

    private final BufferPool pool;
    /**
     * The one buffer of a wrap or unwrap: the array forms of those calls, because the single-buffer
     * forms allocate a {@code ByteBuffer[]} per call. Holds a reference only during the call.
     */
    private final ByteBuffer[] one = new ByteBuffer[1];
    /** Ciphertext received and not yet unwrapped, in read mode; null when none. */
    ByteBuffer netIn;
    /** Records wrapped and not yet written, in read mode; null when none. */
    private ByteBuffer netOut;
    /** Plaintext unwrapped but not yet read by the connection, in read mode; null when none. */
    private ByteBuffer appIn;
    /** The session's largest record, bytes (grows after the handshake or on overflow). */
    int packetSize;
    /** The session's largest plaintext of one record, bytes. */
    int appSize;
    /** The last unwrap needed more bytes than {@code netIn} holds (an incomplete record). */
    boolean needInput;
    /** The last socket read filled {@code netIn}: the socket may hold more. */
    boolean lastFillFull;

    TlsBuffers(BufferPool pool, int packetSize, int appSize) {
        this.pool = pool;
        this.packetSize = packetSize;
        this.appSize = appSize;
    }

    // ---------------------------------------------------------------- in

    /** Whether the next unwrap needs more ciphertext from the socket first. */
    boolean needsFill() {
        return netIn == null || !netIn.hasRemaining() || needInput;
    }

    boolean hasCiphertext() {
        return netIn != null && netIn.hasRemaining();
    }

    /** Reads ciphertext from the socket into {@code netIn} (lent, compacted, grown); returns what the socket returned. */
    int fill(SocketEndpoint socket) throws IOException {
        if (netIn == null) {
            netIn = pool.acquire(packetSize);
            netIn.limit(0);
        }
        netIn.compact();
        if (!netIn.hasRemaining()) {
            if (netIn.capacity() >= 4 * packetSize) {
                throw new SSLException("record larger than any TLS record");
            }
            ByteBuffer bigger = pool.acquire(netIn.capacity() * 2);
            netIn.flip();
            bigger.put(netIn);
            pool.release(netIn);
            netIn = bigger;
        }
        int room = netIn.remaining();
        int r;
        try {
            r = socket.read(netIn);
        } finally {
            netIn.flip();
        }
        lastFillFull = r == room;
        if (r > 0) {
            needInput = false;
        }
        return r;
    }

    /**
     * Whether the next record in {@code netIn} may be an alert, such as close_notify: a TLS 1.2 alert
     * record (content type 21), or a record too short to carry more than a few bytes (a TLS 1.3 alert
     * is hidden behind content type 23, RFC 8446 section 5.2). Such a record is left for the next
     * read once this read has produced data. Bouncy Castle answers close_notify by closing its output
     * at once (no TLS 1.3 half-close), so unwrapping it together with a request would leave that
     * request's response nowhere to go; deferring costs at most one more read.
     */
    boolean mayBeAlert() {
        int p = netIn.position();
        if (netIn.limit() - p < 5) {
            return false;
        }
        int length = (netIn.get(p + 3) & 0xff) << 8 | (netIn.get(p + 4) & 0xff);
        return netIn.get(p) == 21 || length <= 64;
    }

    /** {@code appIn} emptied and in write mode, lent if needed: where an unwrap goes when the connection's room is short. */
    ByteBuffer staging() {
        if (appIn == null) {
            appIn = pool.acquire(appSize);
        }
        appIn.clear();
        return appIn;
    }

    /** After an unwrap into {@link #staging}: turns it to read mode; false when it was dropped meanwhile. */
    boolean flipStaged() {
        if (appIn == null) {
            return false;
        }
        appIn.flip();
        return true;
    }

    /** Gives back a staging buffer smaller than the session's new {@link #appSize}. */
    void dropSmallStaging() {
        if (appIn != null && appIn.capacity() < appSize) {
            pool.release(appIn);
            appIn = null;
        }
    }

    boolean hasStaged() {
        return appIn != null && appIn.hasRemaining();
    }

    /** Copies staged plaintext into {@code dst}, as much as fits. */
    int drainStaged(ByteBuffer dst) {
        if (appIn == null || !appIn.hasRemaining()) {
            return 0;
        }
        int n = Math.min(appIn.remaining(), dst.remaining());
        dst.put(dst.position(), appIn, appIn.position(), n);
        dst.position(dst.position() + n);
        appIn.position(appIn.position() + n);
        return n;
    }

    /** Whether input is held that the socket will not report again: staged plaintext, whole records, or a full last read. */
    boolean holdsInput() {
        return hasStaged() || (netIn != null && netIn.hasRemaining() && !needInput) || lastFillFull;
    }

    /** Unwraps {@code netIn} into {@code target} (the caller's buffer or {@link #staging()}). */
    SSLEngineResult unwrap(SSLEngine engine, ByteBuffer target) throws SSLException {
        one[0] = target;
        try {
            return engine.unwrap(netIn, one, 0, 1);
        } finally {
            one[0] = null;
        }
    }

    // ---------------------------------------------------------------- out

    /** Wraps from {@code src} into {@code netOut} (lent and grown as needed). */
    SSLEngineResult wrap(SSLEngine engine, ByteBuffer src) throws SSLException {
        while (true) {
            if (netOut == null) {
                int want = Math.min(src.remaining(), MAX_BATCH);
                netOut = pool.acquire(Math.max(packetSize, want + (want / 16384 + 1) * (packetSize - 16384)));
                netOut.limit(0);
            }
            netOut.compact();
            SSLEngineResult r;
            one[0] = src;
            try {
                r = engine.wrap(one, 0, 1, netOut);
            } finally {
                one[0] = null;
                netOut.flip();
            }
            if (r.getStatus() != SSLEngineResult.Status.BUFFER_OVERFLOW) {
                return r;
            }
            packetSize = Math.max(packetSize, engine.getSession().getPacketBufferSize());
            ByteBuffer bigger = pool.acquire(Math.max(netOut.capacity() * 2, netOut.remaining() + packetSize));
            bigger.put(netOut);
            bigger.flip();
            pool.release(netOut);
            netOut = bigger;
        }
    }

    /** Whether {@code netOut} lacks room for one more record. */
    boolean outputNearlyFull() {
        return netOut != null && netOut.capacity() - netOut.remaining() < packetSize;
    }

    boolean hasPendingOutput() {
        return netOut != null && netOut.hasRemaining();
    }

    /** Writes {@code netOut}; true when it is empty (and returned to the pool). */
    boolean flush(SocketEndpoint socket) throws IOException {
        if (netOut == null) {
            return true;
        }
        if (netOut.hasRemaining()) {
            socket.write(netOut);
            if (netOut.hasRemaining()) {
                return false;
            }
        }
        pool.release(netOut);
        netOut = null;
        return true;
    }

    // ---------------------------------------------------------------- release

    /** Gives back the input buffers that are empty (after each read). */
    void releaseEmpty() {
        if (netIn != null && !netIn.hasRemaining()) {
            pool.release(netIn);
            netIn = null;
        }
        if (appIn != null && !appIn.hasRemaining()) {
            pool.release(appIn);
            appIn = null;
        }
    }

    /** Gives back everything (the connection closed). */
    void releaseAll() {
        pool.release(netIn);
        pool.release(netOut);
        pool.release(appIn);
        netIn = null;
        netOut = null;
        appIn = null;
    }
}
