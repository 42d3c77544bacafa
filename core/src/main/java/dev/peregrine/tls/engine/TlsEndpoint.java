package dev.peregrine.tls.engine;

import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LayeredEndpoint;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.SocketEndpoint;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.Executor;

/**
 * TLS between a transport's socket and one {@link Connection}, driven by a non-blocking
 * {@link SSLEngine}. The connection sees plaintext: {@link #read} unwraps received records into the
 * connection's buffer (the loop's read buffer or its lent input buffer), {@link #write} wraps the
 * connection's batch of responses into records and sends them in one socket write where they fit.
 *
 * <pre>
 *              accept                 handshake done (engine FINISHED)
 *   HANDSHAKING --------&gt; wrap/unwrap ------------------------------&gt; OPEN --- close_notify in --&gt; EOF (-1)
 *     |   (delegated tasks, timer: TlsHandshake)                          |
 *     |                                                                   +--- shutdownOutput/close:
 *     |                                                                          close_notify out (TlsClosing)
 *     +-- handshake timeout / bad record / EOF -----------------------------&gt; CLOSED
 * </pre>
 *
 * <p>Three helpers each own one job: {@link TlsHandshake} (whether the handshake is under way, its
 * timer, the engine's delegated tasks), {@link TlsClosing} (close_notify, FIN, the alert after an
 * error) and {@link TlsBuffers} (below); this class drives the engine's wrap and unwrap.
 *
 * <p><b>Buffers.</b> {@link TlsBuffers} holds the three pooled buffers ({@code netIn}: ciphertext
 * received; {@code netOut}: records not yet taken by the socket; {@code appIn}: plaintext staged
 * when the connection's buffer had less room than a record), each lent only while it holds bytes,
 * so an idle TLS connection holds none; the engine keeps its own session state.
 *
 * <p><b>Reading again without a readiness event.</b> {@link Connection} reads only when the
 * transport reports the socket readable. After a read this endpoint may still hold input the socket
 * no longer shows: decrypted bytes that did not fit, whole records behind the ones unwrapped, a
 * close_notify to report as end of stream, or a socket read that filled {@code netIn} (more may be
 * waiting, and an edge-triggered transport would not report it again). Then it schedules
 * {@link Connection#onReadable} once on the loop through {@link EventLoop#execute}
 * ({@code readAgain}, a {@link Runnable} made once per connection). The same happens when the
 * connection turns reading back on ({@link #readInterest}) after pausing for backpressure, and when a
 * handshake step that waited for a delegated task or for the socket to take our flight can go on.
 *
 * <p><b>Writing.</b> What {@link #write} reports as written is encrypted; its records may still sit in
 * {@code netOut} when the socket is full. {@link #flushBuffered} sends them on the next writability
 * event before the connection writes anything else, and a {@link #shutdownOutput} waits for them
 * before sending FIN. While records are pending, {@link #write} takes no new bytes, so the
 * connection's own pending output (and its backpressure) still sees what the peer does not read.
 *
 * <p>Client errors (not TLS, truncated records, bad handshakes, stalls) close the connection and are
 * logged at DEBUG only, on logger {@code dev.peregrine.tls}.
 *
 * <p>Thread: the owning loop thread, except that the engine's delegated tasks run on the executor
 * while {@link TlsHandshake#taskRunning()} says so; the loop does not touch the engine then.
 */
final class TlsEndpoint implements LayeredEndpoint {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.tls");
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    private static final int WRAP_SENT = 0;
    private static final int WRAP_BLOCKED = 1;
    private static final int WRAP_CLOSED = 2;

    private final SocketEndpoint socket;
    private final SSLEngine engine;
    private final EventLoop loop;
    private final Runnable readAgain = this::readAgain;
    private final Runnable writeAgain = this::writeAgain;
    private Connection connection;

    /** The three lent buffers (ciphertext in and out, staged plaintext) and the byte work on them. */
    private final TlsBuffers buffers;

    /** Whether the handshake is under way, its timer and delegated tasks. */
    private final TlsHandshake handshake;
    private boolean readWanted = true;
    private boolean writeWanted;
    /** End of input: the peer's close_notify or the socket's EOF. */
    private boolean inputEnded;
    /** close_notify, FIN and the alert after an error. */
    private final TlsClosing closing;
    private boolean readAgainScheduled;
    private boolean closed;
    /** The first TLS error, kept for the protocol to name ({@link #tlsFailure}). */
    private SSLException failure;

    TlsEndpoint(SocketEndpoint socket, SSLEngine engine, LoopContext ctx, Executor executor, long handshakeTimeoutMillis) {
        this.socket = socket;
        this.engine = engine;
        this.loop = ctx.eventLoop();
        this.buffers = new TlsBuffers(ctx.pool(), engine.getSession().getPacketBufferSize(),
                engine.getSession().getApplicationBufferSize());
        this.handshake = new TlsHandshake(this, engine, ctx, executor, handshakeTimeoutMillis);
        this.closing = new TlsClosing(socket, engine, buffers, handshake);
    }

    /** The ALPN choice once the handshake is done (null before, or when none was made). */
    @Override
    public String applicationProtocol() {
        if (handshake.inProgress()) {
            return null;
        }
        String p = engine.getApplicationProtocol();
        return p == null || p.isEmpty() ? null : p;
    }

    @Override
    public void attach(Connection connection) {
        this.connection = connection;
        if (socket instanceof LayeredEndpoint) {
            ((LayeredEndpoint) socket).attach(connection); // a layer below (PROXY) serves the same connection
        }
        if (engine.getUseClientMode()) {
            scheduleReadAgain(); // a client speaks first: the ClientHello goes out from the read path
        }
    }

    // ---------------------------------------------------------------- reading

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (closed) {
            return -1;
        }
        if (handshake.taskRunning()) {
            return 0;
        }
        try {
            int n = readPlaintext(dst);
            buffers.releaseEmpty();
            return n;
        } catch (SSLException e) {
            fail(e);
            throw e;
        } catch (RuntimeException e) {
            // A provider may throw unchecked exceptions on malformed input: still the client's fault.
            fail(e);
            throw new IOException(e);
        }
    }

    /** Runs the engine until {@code dst} has plaintext, the socket has nothing more, or the engine waits. */
    private int readPlaintext(ByteBuffer dst) throws IOException {
        int produced = buffers.drainStaged(dst);
        boolean more = false;
        while (true) {
            SSLEngineResult.HandshakeStatus hs = engine.getHandshakeStatus();
            if (hs == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                startTasks();
                break;
            }
            if (hs == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
                int w = wrapForEngine();
                if (w == WRAP_BLOCKED) {
                    break; // the socket is full: flushBuffered resumes the handshake
                }
                if (w == WRAP_CLOSED) {
                    if (handshake.inProgress()) {
                        throw new SSLException("TLS handshake ended by the engine");
                    }
                    break; // our close_notify answering theirs is on its way
                }
                continue;
            }
            if (handshake.inProgress() && hs == SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING) {
                handshakeFinished();
            }
            if (inputEnded) {
                break;
            }
            if (!dst.hasRemaining() || buffers.hasStaged()) {
                more = true;
                break;
            }
            if (buffers.needsFill()) {
                if (produced > 0 && !buffers.lastFillFull) {
                    break; // the socket was drained by the last read: no read that would return 0
                }
                int r = buffers.fill(socket);
                if (r < 0) {
                    if (handshake.inProgress() || buffers.hasCiphertext()) {
                        LOG.log(System.Logger.Level.DEBUG, "TLS: {0} closed mid-{1}", socket.remoteAddress(),
                                handshake.inProgress() ? "handshake" : "record");
                    }
                    inputEnded = true;
                    break;
                }
                if (r == 0) {
                    break;
                }
            }
            if (produced > 0 && buffers.mayBeAlert()) {
                more = true; // answered on the next read, after the connection has used the data
                break;
            }
            produced += unwrapOnce(dst);
        }
        if (produced > 0) {
            if (more || inputEnded || hasBufferedInput()) {
                scheduleReadAgain();
            }
            return produced;
        }
        return inputEnded ? -1 : 0;
    }

    /** One unwrap of {@code netIn}, straight into {@code dst} when a record fits, else through {@code appIn}. */
    private int unwrapOnce(ByteBuffer dst) throws SSLException {
        boolean direct = dst.remaining() >= buffers.appSize;
        ByteBuffer target = direct ? dst : buffers.staging();
        SSLEngineResult r = buffers.unwrap(engine, target);
        switch (r.getStatus()) {
            case BUFFER_UNDERFLOW:
                buffers.needInput = true;
                break;
            case BUFFER_OVERFLOW:
                // The session's sizes changed (e.g. after the handshake): take the new ones and retry.
                buffers.appSize = Math.max(buffers.appSize + 1, engine.getSession().getApplicationBufferSize());
                if (!direct) {
                    buffers.dropSmallStaging();
                }
                break;
            case CLOSED:
                inputEnded = true; // close_notify (RFC 8446 section 6.1): end of stream
                break;
            default:
                break;
        }
        if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED) {
            handshakeFinished();
        } else if (handshake.renegotiating(r.getHandshakeStatus())) {
            throw new SSLException("client-initiated renegotiation refused");
        }
        if (direct) {
            return r.bytesProduced();
        }
        return buffers.flipStaged() ? buffers.drainStaged(dst) : 0;
    }

    private boolean hasBufferedInput() {
        return buffers.holdsInput();
    }

    private void scheduleReadAgain() {
        if (!readAgainScheduled) {
            readAgainScheduled = true;
            loop.execute(readAgain);
        }
    }

    /** On the loop: another read for input this endpoint holds but the socket does not show. */
    private void readAgain() {
        readAgainScheduled = false;
        if (!closed && readWanted) {
            connection.onReadable();
        }
    }

    // ---------------------------------------------------------------- handshake

    /**
     * Wraps what the engine wants to send by itself (a handshake flight, a session ticket, the
     * close_notify answering the peer's) and sends it: {@link #WRAP_SENT}, {@link #WRAP_BLOCKED} when
     * the socket did not take all of it, or {@link #WRAP_CLOSED} when the engine's output is done.
     */
    private int wrapForEngine() throws IOException {
        SSLEngineResult r = buffers.wrap(engine, EMPTY);
        if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.FINISHED) {
            handshakeFinished();
        }
        boolean closedNow = r.getStatus() == SSLEngineResult.Status.CLOSED || engine.isOutboundDone();
        if (closedNow) {
            closing.engineOutputDone();
        }
        boolean sent = buffers.flush(socket);
        updateWriteInterest();
        if (closedNow) {
            return WRAP_CLOSED;
        }
        if (!sent) {
            return WRAP_BLOCKED;
        }
        return r.bytesProduced() == 0 ? WRAP_CLOSED : WRAP_SENT;
    }

    /** Runs as a loop task once the handshake is done: output the connection queued meanwhile goes out. */
    private void writeAgain() {
        if (!closed) {
            connection.onWritable();
        }
    }

    private void handshakeFinished() {
        if (handshake.finish()) {
            buffers.packetSize = engine.getSession().getPacketBufferSize();
            buffers.appSize = engine.getSession().getApplicationBufferSize();
            if (connection != null && connection.pendingOutput() > 0) {
                // A client wrote its request before the handshake ended; the engine took none of it
                // then. No writability event may come for it (epoll reports an edge once), so the
                // connection is asked to write again now.
                loop.execute(writeAgain);
            }
        }
    }

    /** Hands the engine's delegated tasks to the executor; reading pauses until they are done. */
    private void startTasks() throws SSLException {
        socket.readInterest(false);
        handshake.startTasks();
    }

    /** On the loop ({@link TlsHandshake}): the engine is ours again; continue the handshake. */
    void tasksDone() {
        if (closed) {
            return;
        }
        socket.readInterest(readWanted);
        connection.onReadable();
    }

    /** The handshake timer expired ({@link TlsHandshake}): a client that does not finish in time is closed. */
    void handshakeTimedOut() {
        if (!closed) {
            LOG.log(System.Logger.Level.DEBUG, "TLS: handshake with {0} timed out", socket.remoteAddress());
            connection.close();
        }
    }

    // ---------------------------------------------------------------- writing

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (closed || closing.outputClosed()) {
            throw new IOException("TLS output closed");
        }
        if (!buffers.flush(socket)) {
            updateWriteInterest();
            return 0;
        }
        int consumed = 0;
        try {
            while (src.hasRemaining()) {
                if (buffers.outputNearlyFull() && !buffers.flush(socket)) {
                    break; // the socket is full; the rest stays with the connection
                }
                SSLEngineResult r = buffers.wrap(engine, src);
                consumed += r.bytesConsumed();
                if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                    throw new IOException("TLS output closed");
                }
                if (r.getStatus() == SSLEngineResult.Status.OK && r.bytesConsumed() == 0 && r.bytesProduced() == 0) {
                    break; // the engine wants something else first (a post-handshake message): next read
                }
            }
            buffers.flush(socket);
        } catch (SSLException e) {
            fail(e);
            throw e;
        }
        updateWriteInterest();
        return consumed;
    }

    @Override
    public boolean flushBuffered() throws IOException {
        if (closed) {
            return true;
        }
        boolean done = buffers.flush(socket);
        if (done) {
            closing.finIfPending();
            if (handshake.inProgress() && !handshake.taskRunning()) {
                scheduleReadAgain(); // the handshake waited for the socket to take our flight
            }
        }
        updateWriteInterest();
        return done;
    }

    private void updateWriteInterest() {
        socket.writeInterest(writeWanted || buffers.hasPendingOutput());
    }

    @Override
    public void readInterest(boolean on) {
        readWanted = on;
        socket.readInterest(on && !handshake.taskRunning());
        if (on && !handshake.taskRunning() && hasBufferedInput()) {
            scheduleReadAgain();
        }
    }

    @Override
    public void writeInterest(boolean on) {
        writeWanted = on;
        updateWriteInterest();
    }

    // ---------------------------------------------------------------- closing

    /** Sends close_notify (RFC 8446 section 6.1), then FIN once every record before it is written. */
    @Override
    public void shutdownOutput() {
        if (!closed && closing.shutdownOutput()) {
            updateWriteInterest();
        }
    }

    /** After a TLS error: logs it at DEBUG, keeps it ({@link #tlsFailure}) and tries to send the alert the engine prepared. */
    private void fail(Exception e) {
        LOG.log(System.Logger.Level.DEBUG, "TLS: closing {0}: {1}", socket.remoteAddress(), e.toString());
        if (failure == null) {
            failure = e instanceof SSLException ssl ? ssl : new SSLException(e);
        }
        if (!closed) {
            closing.fail();
        }
    }

    @Override
    public SSLException tlsFailure() {
        return failure;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (!handshake.inProgress()) {
            closing.sendCloseNotify();
            try {
                buffers.flush(socket); // best effort: the connection is going away either way
            } catch (IOException ignored) {
                // the peer is gone
            }
        }
        closed = true;
        handshake.cancelTimer();
        buffers.releaseAll();
        socket.close();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return socket.remoteAddress();
    }
}
