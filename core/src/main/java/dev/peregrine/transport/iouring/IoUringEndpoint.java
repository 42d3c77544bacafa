package dev.peregrine.transport.iouring;

import dev.peregrine.buffer.BufferPool;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.NativeEndpoint;
import dev.peregrine.transport.NativeEventLoop;
import dev.peregrine.transport.PeerAddress;
import dev.peregrine.transport.ReadPump;

import dev.peregrine.transport.epoll.EpollAvailability;
import dev.peregrine.transport.epoll.FileSender;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One connection on an io_uring {@link NativeEventLoop}: the {@link SocketEndpoint} its
 * {@link Connection} talks to, and the receiver of its socket's poll and send completions.
 *
 * <p><b>Input, with the loop's {@link RecvRing}.</b> One multishot receive per connection, armed at the
 * start: the kernel fills a ring buffer whenever bytes arrive and posts a completion naming it, with no
 * system call of ours. Each completion is queued (linked through the ring: no object per connection)
 * and is readiness for the endpoint's {@link ReadPump}, which calls {@link Connection#onReadable()} while the connection wants input (its
 * javadoc draws how); the connection's read ({@link #readSocket}) copies the queued bytes into the
 * loop's read buffer (or the connection's lent one) and each buffer goes back to the ring as it is
 * emptied. So the protocol sees what it sees on the other transports: a read into its buffer, the rest
 * kept by the connection's {@code InputHold}.
 * <pre>
 *   armed --recv(n, bid, more)--&gt; queue (bid, n) --&gt; pump: onReadable() -- read: copy, bid back to the ring
 *     |      queue empty: a short read; readDrained(): armed? nothing : arm again (if reading)
 *     |--recv(0)          end of stream: queued behind the bytes, read as -1; not armed again
 *     |--recv(-errno)     queued behind the bytes, thrown by the read that reaches it
 *     |--recv(-ENOBUFS)   the ring ran dry: STARVED, reads recv(2) the socket, the poll below tells
 *     |                   when; when a read drains it and a quarter of the ring is back: arm again
 *     |--readInterest(false) (backpressure: paused, closing) --&gt; cancel; completions already on the
 *     |                   way are queued; readInterest(true) arms again (or the cancel's end does)
 *     '--ended by the kernel (no F_MORE) --&gt; armed again by the read that finds the queue empty
 * </pre>
 * End of stream and errors are reported to the pump as a hang-up, so it reads on past a short read until
 * the read returns -1 or throws. An idle connection holds no ring buffer: the kernel takes one only when
 * bytes arrive.
 *
 * <p><b>Input without a ring</b> (it cannot be had, is turned off, or ran dry). A one-shot read poll is
 * armed whenever the socket has shown it is empty (a read shorter than asked, {@code EAGAIN}), and at
 * the start; its completion is readiness for the pump; {@code onReadable()} reads the socket.
 * <pre>
 *   poll(in) completes ---&gt; pump: onReadable() ... read: short / EAGAIN: arm the poll again
 *                                                      EOF or error: nothing armed again
 * </pre>
 * A poll armed on a socket that is already readable completes at once, so the arming after a short
 * read loses nothing. A paused connection keeps its poll armed: its completion only sets
 * {@code readReady}. After a hang-up a short read no longer clears {@code readReady}: the end of stream
 * is queued behind the data, so reading goes on until it returns -1. After the end of stream no poll
 * is armed again (it would complete at once, forever).
 *
 * <p><b>Output.</b> {@link #write} copies into a send buffer lent by the loop's pool and submits one
 * {@code IORING_OP_SEND} for it, so the sends of every connection served in a loop turn reach the
 * kernel together in the next {@code io_uring_enter}; bytes written while a send is in flight are
 * appended behind it and leave with the next one. The write takes only what fits in the buffer (at most
 * {@link #MAX_SEND_BUFFER}): the rest stays with the connection ({@code OutputBacklog}, write
 * interest on), and the send's completion reports writability.
 * <pre>
 *   write(src) ---&gt; copy into sendBuf[tail..] ---&gt; no send in flight or waiting: send [head, tail)
 *   sent(n)    ---&gt; head += n ---&gt; head &lt; tail: send [head, tail)       (a short send, or bytes appended)
 *                             '--&gt; head == tail: buffer back to the pool; a deferred FIN goes now;
 *                                                 onWritable() if the connection waits to write
 *   sent(-EAGAIN) --&gt; the socket is full: sendWaiting, POLLOUT poll --&gt; its completion: send [head, tail)
 *   sent(-errno)  --&gt; buffer back; the next write throws it (the connection closes)
 * </pre>
 * Every send is non-blocking ({@code MSG_DONTWAIT}): it completes in the {@code io_uring_enter} that
 * submits it, with what the socket took or {@code EAGAIN}, and never stays parked in the kernel.
 * {@link #shutdownOutput} waits for the bytes taken (FIN after them). The connection counts what
 * {@link #write} took as written, as the other transports' kernels hold it, so a close lingers: the
 * connection is gone (its slot in maxConnections released) but the bytes are sent on, and the
 * descriptor closed after the last, or after {@link #LINGER_MILLIS} when the peer takes nothing more
 * (what it has not taken is then dropped). A send in flight at the descriptor's close completes in the
 * next {@code io_uring_enter} ({@link NettyIoUring.Fd#closeSocket}) and frees the buffer then.
 *
 * <p>An idle connection holds no buffer: only its armed receive or poll, in the kernel. On the heap it is
 * this one object (it is its socket: it extends {@link NettyIoUring.Fd}, and reaches what the loop shares
 * through {@link RingSockets}) and its send entry, beside what every transport keeps (connection,
 * protocol, {@link ReadPump}); no Netty registration of its own.
 *
 * <p>Thread: the owning loop only.
 */
final class IoUringEndpoint extends NettyIoUring.Fd implements NativeEndpoint {
    /** Largest send buffer lent to a connection (the default write buffer's size: one batch). */
    static final int MAX_SEND_BUFFER = 64 << 10;
    private static final int EAGAIN = -11;
    private static final int ENOBUFS = -105;
    private static final int ECANCELED = -125;
    /** {@link #recvEnd}: the end of stream. */
    private static final short EOF = -1;
    /** How long a closed connection's last bytes may take to leave (the peer reads slowly or not at all). */
    static final long LINGER_MILLIS = 5_000;

    private final ConnectionLimit limit;
    /** The peer's address, made at the first {@link #remoteAddress()} when {@link #packedRemote} holds it. */
    private InetSocketAddress remote;
    /** The peer's IPv4 address and port ({@link PeerAddress}), or {@link PeerAddress#NONE}: {@link #remote} is it. */
    private final long packedRemote;
    private final ReadPump pump;
    /**
     * The ring buffers received and not read yet, in order: the first and last id of a queue linked
     * through the ring ({@link RecvRing#next}), -1 when empty; bytes of the first already read. Shorts (every
     * idle connection keeps these fields): a ring has at most 16,384 buffers of 16 KiB ({@link RecvRing}).
     */
    private short recvFirst = -1;
    private short recvLast = -1;
    private short recvOffset;
    /** Whether the connection takes input (its read interest). */
    private boolean reading = true;
    /**
     * How the receive ended, queued behind the bytes received: 0 it did not, {@link #EOF} the end of
     * stream, else the errno it failed with (below 4096).
     */
    private short recvEnd;
    /** The ring ran dry ({@code ENOBUFS}): the socket is polled and read until it is refilled. */
    private boolean starved;

    private boolean writing;
    private boolean closed;
    /** sendfile on this socket, made at the first file sent; null before, or when it cannot be had. */
    private FileSender files;
    private boolean noFiles;
    /** Output given to the kernel or waiting for it: {@code [sendHead, sendTail)}; lent only while non-empty. */
    private ByteBuffer sendBuf;
    private int sendHead;
    private int sendTail;
    /** The errno of a failed send, thrown by the next write. */
    private short sendError;
    private boolean shutdownPending;
    /** A send found the socket full ({@code EAGAIN}): a POLLOUT poll is armed to send {@code [sendHead, sendTail)}. */
    private boolean sendWaiting;
    /** Closed with bytes still to send: they go out before the descriptor closes ({@link #close}). */
    private boolean lingering;
    /** The linger's timer node, made by the first close that lingers (an idle connection holds none). */
    private dev.peregrine.loop.Timeout linger;

    /**
     * Takes over descriptor {@code fd} of a socket of {@code sockets}' loop, whose slot in {@code limit} is
     * released when it closes. What the whole loop shares (the loop, its pool, its ring) is reached
     * through {@code sockets}, not kept here: an idle connection keeps only its own state.
     */
    IoUringEndpoint(RingSockets sockets, int fd, InetSocketAddress remote, ConnectionLimit limit) {
        super(fd, sockets);
        this.packedRemote = PeerAddress.pack(remote);
        this.remote = packedRemote == PeerAddress.NONE ? remote : null; // an idle connection keeps 8 bytes, not 96
        this.limit = limit;
        this.pump = new ReadPump(this);
        sockets.io().recvRing(); // the first connection finds the ring (or learns it cannot be had)
    }

    private IoUringIo io() {
        return sockets().io();
    }

    /** The loop's receive ring; null: poll and recv. */
    private RecvRing ring() {
        return sockets().io().ring();
    }

    private BufferPool pool() {
        return sockets().io().owner().context().pool();
    }

    @Override
    public ReadPump pump() {
        return pump;
    }

    @Override
    public NativeEventLoop owner() {
        return io().owner();
    }

    /** Registers the accepted socket and arms its first receive (or read poll). */
    @Override
    public void register() throws IOException {
        register(sockets());
        armInput();
    }

    /** Arms what brings input: the multishot receive, or the read poll without a ring or while it is dry. */
    void armInput() {
        RecvRing ring = ring();
        if (ring == null || starved) {
            armRead();
        } else if (recvEnd == 0) {
            armRecv(ring.group());
        }
    }

    @Override
    public void received(int res, int bid, boolean more) {
        RecvRing ring = ring();
        if (bid >= 0) {
            if (closed || res <= 0) {
                ring.taken(bid, 0, -1);
                ring.recycle(bid); // nobody will read it (a completion naming a buffer carries bytes; be safe)
                bid = -1;
            } else {
                recvLast = (short) ring.taken(bid, res, recvLast);
                if (recvFirst < 0) {
                    recvFirst = recvLast;
                }
            }
        }
        if (closed) {
            return;
        }
        if (res > 0) {
            if (bid < 0) {
                return; // bytes without a buffer cannot happen with IOSQE_BUFFER_SELECT
            }
        } else if (res == 0) {
            recvEnd = EOF;
        } else if (res == ECANCELED) {
            // The pause's cancel ended the receive: armed again if reading resumed meanwhile.
            if (reading && recvFirst < 0) {
                armInput();
            }
            return;
        } else if (res == ENOBUFS) {
            if (more) {
                return; // a kernel that keeps the receive armed retries it: recv(2) beside it could reorder bytes
            }
            starved = true; // the receive ended; the bytes wait in the socket: the pump reads them with recv(2)
            ring.ranDry();
        } else {
            recvEnd = (short) -res;
        }
        pump.event(false, true, recvEnd != 0);
    }

    @Override
    public void ready(boolean in, boolean out, boolean hangup) {
        if (closed) {
            if (out && sendWaiting && lingering) {
                sendWaiting = false;
                send(sendBuf, sendHead, sendTail - sendHead);
            }
            return;
        }
        boolean writable = false;
        if (out) {
            if (sendWaiting) {
                sendWaiting = false; // the socket takes bytes again: the send's completion reports writability
                send(sendBuf, sendHead, sendTail - sendHead);
            } else {
                writable = writing;
            }
        }
        pump.event(writable, in, hangup);
        if (writable && writing && !closed && !sending() && !sendWaiting) {
            armWrite(); // else the send's completion, or its poll, reports writability
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return pump.read(dst);
    }

    @Override
    public int readSocket(ByteBuffer dst) throws IOException {
        RecvRing ring = ring();
        if (ring == null) {
            return recvSocket(dst);
        }
        if (recvFirst >= 0) {
            return copyReceived(dst);
        }
        if (recvEnd > 0) {
            throw new IOException("recv failed: errno " + recvEnd);
        }
        if (recvEnd == EOF) {
            return -1;
        }
        return starved ? recvSocket(dst) : 0;
    }

    /**
     * Copies received bytes into {@code dst} from its position (advanced), as far as they fit; each ring
     * buffer emptied goes back to the ring at once. Returns the bytes copied.
     */
    private int copyReceived(ByteBuffer dst) {
        RecvRing ring = ring();
        int copied = 0;
        while (recvFirst >= 0 && dst.hasRemaining()) {
            int bid = recvFirst;
            int length = ring.length(bid);
            int k = Math.min(length - recvOffset, dst.remaining());
            dst.put(dst.position(), ring.buffer(bid), recvOffset, k);
            dst.position(dst.position() + k);
            copied += k;
            recvOffset += k;
            if (recvOffset == length) {
                recvFirst = (short) ring.next(bid);
                if (recvFirst < 0) {
                    recvLast = -1;
                }
                recvOffset = 0;
                ring.recycle(bid);
            }
        }
        return copied;
    }

    /**
     * The connection has read everything there is now: the next completion brings more when the receive
     * is armed; else it is armed again (or, without a ring or while it is dry, the poll).
     */
    @Override
    public void readDrained() {
        RecvRing ring = ring();
        if (ring == null) {
            armRead();
        } else if (starved) {
            if (ring.refilled()) {
                starved = false; // what the socket holds now comes with the receive's first completion
                armRecv(ring.group());
            } else {
                armRead();
            }
        } else if (reading && !receiving()) {
            armInput();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (sendError != 0) {
            throw new IOException("send failed: errno " + sendError);
        }
        int n = src.remaining();
        if (n == 0 || closed) {
            return 0;
        }
        ByteBuffer b = sendBuf;
        if (b == null) {
            BufferPool pool = pool();
            int max = Math.min(MAX_SEND_BUFFER, pool.maxBufferSize());
            b = sendBuf = pool.acquire(Math.min(Math.max(n, BufferPool.MIN_SIZE), max));
            sendHead = sendTail = 0;
        }
        int k = Math.min(n, b.capacity() - sendTail);
        if (k == 0) {
            return 0;
        }
        b.put(sendTail, src, src.position(), k);
        src.position(src.position() + k);
        sendTail += k;
        if (!sending() && !sendWaiting) {
            send(b, sendHead, sendTail - sendHead);
        }
        return k;
    }

    @Override
    public void sent(int res) {
        try {
            sendCompleted(res);
        } catch (Throwable t) {
            if (!closed) {
                owner().connectionFailed(pump.connection, t); // a bug of ours costs this connection, not the loop
            } else if (lingering) {
                endLinger();
            }
        }
    }

    private void sendCompleted(int res) {
        ByteBuffer b = sendBuf;
        if (res > 0) {
            sendHead += res;
            if (sendHead < sendTail) {
                // Bytes appended behind this send, or the socket took part: send on, also after a close
                // (each send is non-blocking, so a full socket ends it with EAGAIN).
                send(b, sendHead, sendTail - sendHead);
                return;
            }
        } else if (res == EAGAIN) {
            if (!closed || lingering) {
                sendWaiting = true; // the socket is full: a POLLOUT poll sends the rest
                armWrite();
                return;
            }
        } else if (!closed) {
            sendError = (short) (res == 0 ? 32 /* EPIPE */ : -res);
        }
        sendBuf = null;
        sendHead = sendTail = 0;
        if (b != null) {
            pool().release(b); // the kernel is done with it: sent, failed or given up
        }
        if (closed) {
            if (lingering) {
                endLinger();
            }
            return;
        }
        if (shutdownPending) {
            shutdownPending = false;
            shutdownSocket();
        }
        if (writing) {
            // onWritable() writes the backlog (or fails on sendError) and may send again; the pump that
            // follows reads, as the write may have lifted backpressure.
            pump.event(true, false, false);
        }
    }

    /**
     * {@code sendfile(2)} straight from the file to this socket (the ring has no sendfile, and splicing
     * needs the file's descriptor number, which the JDK does not give; {@link FileSender} reaches the
     * call as epoll does). Bytes copied for earlier writes leave first: while a send is in flight or
     * waiting this returns 0, and the send's completion reports writability (the caller has asked for
     * it), after which the file goes. A full socket returns 0 too, and the caller's write interest arms a
     * {@code POLLOUT} poll. Where sendfile cannot be had, -1: files are copied through the pool (one INFO
     * line says so).
     */
    @Override
    public long transferFile(FileChannel file, long position, long count) throws IOException {
        if (closed || noFiles) {
            return -1;
        }
        if (sendBuf != null) {
            return 0;
        }
        if (files == null) {
            files = sendFileHere() ? FileSender.forDescriptor(descriptor()) : null;
            if (files == null) {
                noFiles = true;
                return -1;
            }
        }
        long n = files.send(file, position, count);
        if (n > 0) {
            owner().context().metrics().sendfileBytes += n;
        }
        return n;
    }

    /** Whether sendfile's library (Netty epoll's, which carries it) loads here; says once when not. */
    private static boolean sendFileHere() {
        if (EpollAvailability.isAvailable()) {
            return true;
        }
        if (!noSendFileSaid) {
            noSendFileSaid = true;
            System.getLogger("dev.peregrine").log(System.Logger.Level.INFO, "io_uring: no sendfile ("
                    + EpollAvailability.unavailabilityReason() + "); files are sent through the loop's buffers");
        }
        return false;
    }

    private static volatile boolean noSendFileSaid;

    /**
     * Backpressure: a paused connection stops receiving (its receive is cancelled, so no ring buffer
     * piles up behind it), and receives again when it resumes; the poll path keeps its poll armed and
     * only remembers the readiness, as before.
     */
    @Override
    public void readInterest(boolean on) {
        RecvRing ring = ring();
        reading = on;
        pump.readInterest(on);
        if (ring == null || closed) {
            return;
        }
        if (!on) {
            cancelRecv();
        } else if (!receiving() && recvFirst < 0) {
            armInput(); // queued bytes first: the read that empties the queue arms it
        }
    }

    @Override
    public void writeInterest(boolean on) {
        writing = on;
        if (on && !closed && !sending() && !sendWaiting) {
            armWrite(); // no send to report it: a poll, which completes at once if the socket can take bytes
        }
    }

    @Override
    public void shutdownOutput() {
        if (sending() || sendWaiting) {
            shutdownPending = true; // FIN after the bytes in flight
        } else {
            shutdownSocket();
        }
    }

    @Override
    public void close() {
        RecvRing ring = ring();
        if (closed) {
            return;
        }
        closed = true;
        pump.close();
        if (ring != null) {
            cancelRecv(); // its last completions return their buffers to the ring
            while (recvFirst >= 0) { // and those not read go back unread
                int bid = recvFirst;
                recvFirst = (short) ring.next(bid);
                ring.recycle(bid);
            }
            recvLast = -1;
        }
        if (files != null) {
            files.forget(); // the descriptor's number is not ours once it closes
            files = null;
        }
        owner().unlink(pump);
        limit.release();
        if (sendBuf != null && sendHead < sendTail) {
            // Bytes the connection counts as written: the other transports' kernels send them after close(2),
            // so these are sent before the descriptor closes, for at most LINGER_MILLIS.
            lingering = true;
            owner().linger(pump);
            linger = new dev.peregrine.loop.Timeout() {
                @Override
                protected void onTimeout() {
                    if (lingering) {
                        endLinger(); // the peer does not read: what it has not taken is dropped
                    }
                }
            };
            owner().context().timers().schedule(linger, LINGER_MILLIS, owner().context().nowMillis());
            return;
        }
        closeSocket();
    }

    /**
     * The linger ends: everything sent, a send failed, the time is up or the loop stops. Closes the
     * descriptor. Thread: this loop.
     */
    @Override
    public void endLinger() {
        if (!lingering) {
            return;
        }
        lingering = false;
        owner().unlink(pump);
        sendWaiting = false;
        owner().context().timers().cancel(linger);
        if (!sending() && sendBuf != null) {
            pool().release(sendBuf);
            sendBuf = null;
        }
        closeSocket(); // a send still in flight completes in the next io_uring_enter and frees the buffer then
    }

    @Override
    public InetSocketAddress remoteAddress() {
        if (remote == null) {
            remote = PeerAddress.unpack(packedRemote);
        }
        return remote;
    }
}
