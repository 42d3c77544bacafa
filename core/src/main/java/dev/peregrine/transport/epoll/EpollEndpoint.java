package dev.peregrine.transport.epoll;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.transport.ConnectionLimit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One accepted connection on an {@link EpollEventLoop}: the {@link SocketEndpoint} its
 * {@link Connection} talks to, and the receiver of the socket's epoll events.
 *
 * <p><b>Edge-triggered input.</b> epoll reports "readable" once per change, not while bytes wait, so
 * this class remembers it: {@code readReady} is set by an event and cleared only when the kernel has
 * shown there is no more (a read shorter than asked, {@code EAGAIN} or end of stream). While it is set
 * and the connection wants input, {@link #pump} calls {@link Connection#onReadable()} again.
 * <pre>
 *   event(in) ---&gt; readReady = true ---&gt; pump: while readReady &amp;&amp; reading: onReadable()
 *                                             |- short read / EAGAIN / EOF: readReady = false, stop
 *                                             |- onReadable() returned false (the connection takes
 *                                             |  no input now: paused, closing) and no layer under it
 *                                             |  (TLS) read the socket either: stop, readReady kept
 *                                             '- READS_PER_TURN reached: queue resume() behind the
 *                                                loop's other work, readReady kept
 *   readInterest(true) outside an event ---&gt; queue resume()      (backpressure lifted from a task)
 *   event(out) ---&gt; onWritable() first; if it lifted backpressure, the pump that follows reads
 * </pre>
 * Turning read interest off does not touch epoll: while a connection is paused the kernel reports at
 * most one event per arrival (edge-triggered), which only sets {@code readReady}, and the peer soon
 * stops sending as its window fills. {@code EPOLLOUT} is armed only while output is pending.
 *
 * <p>After a hang-up ({@code EPOLLRDHUP}, {@code EPOLLHUP}, {@code EPOLLERR}) a short read no longer
 * clears {@code readReady}: the end of stream is already queued behind the data and no further event
 * would announce it, so reading goes on until it returns -1.
 *
 * <p>Thread: the owning loop only.
 */
final class EpollEndpoint implements SocketEndpoint, NettyEpoll.Readiness {
    /** Reads of one connection per turn before the loop's other sockets get theirs (fairness). */
    static final int READS_PER_TURN = 16;

    private final EpollEventLoop loop;
    private final NettyEpoll.Fd fd;
    private final InetSocketAddress remote;
    private final ConnectionLimit limit;
    private final Runnable resume = this::resume;
    Connection connection;
    /** The loop's list of open endpoints (for shutdown). */
    EpollEndpoint prev;
    EpollEndpoint next;

    private boolean readReady;
    private boolean hungUp;
    private boolean reading = true;
    private boolean writing;
    private boolean inEvent;
    private boolean resumeQueued;
    private boolean closed;
    /**
     * Reads of the socket that moved bytes. A layer (TLS) may read the socket and hand the connection
     * no plaintext yet: the socket still moved, so the pump goes on while it does.
     */
    private long socketReads;

    /** Takes over {@code fd}, whose slot in {@code limit} is released when it closes. */
    EpollEndpoint(EpollEventLoop loop, NettyEpoll.Fd fd, InetSocketAddress remote, ConnectionLimit limit) {
        this.loop = loop;
        this.fd = fd;
        this.remote = remote;
        this.limit = limit;
    }

    @Override
    public void ready(boolean in, boolean out, boolean hangup) {
        if (closed) {
            return;
        }
        inEvent = true;
        try {
            if (out && writing) {
                connection.onWritable();
            }
            if (in) {
                readReady = true;
                hungUp |= hangup;
            }
            pump();
        } catch (Throwable t) {
            loop.connectionFailed(connection, t);
        } finally {
            inEvent = false;
        }
    }

    /** Comes back for input left unread by the fairness cap or a lifted pause. Runs as a loop task. */
    private void resume() {
        resumeQueued = false;
        if (closed) {
            return;
        }
        inEvent = true;
        try {
            pump();
        } catch (Throwable t) {
            loop.connectionFailed(connection, t);
        } finally {
            inEvent = false;
        }
    }

    private void pump() {
        int turns = 0;
        while (readReady && reading && !closed) {
            if (turns++ == READS_PER_TURN) {
                queueResume();
                return;
            }
            long before = socketReads;
            boolean wants = connection.onReadable();
            if (!wants && socketReads == before) {
                // Neither the connection (paused, closing) nor a layer under it (TLS waiting on a
                // delegated task or a full socket) took bytes from the socket: readReady stays for later.
                return;
            }
        }
    }

    private void queueResume() {
        if (!resumeQueued) {
            resumeQueued = true;
            if (!loop.executeOrDrop(resume)) {
                resumeQueued = false;
            }
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int asked = dst.remaining();
        if (asked == 0) {
            return 0;
        }
        int n;
        try {
            n = fd.read(dst);
        } catch (IOException e) {
            readReady = false;
            throw e;
        }
        if (n != 0) {
            socketReads++;
        }
        if (n < 0 || n == 0 || (n < asked && !hungUp)) {
            readReady = false; // the kernel has nothing more now; a new arrival raises a new edge
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return fd.write(src);
    }

    /**
     * {@code sendfile(2)} from the file's own descriptor (a shared cached file's, for a
     * {@link SocketEndpoint.FileView}). Edge-triggered writability: when this returns less than asked
     * the caller arms {@code EPOLLOUT} ({@link #writeInterest}), and {@code epoll_ctl} reports the socket
     * writable at once if it already is, so no edge is lost between the short send and the arming.
     */
    @Override
    public long transferFile(FileChannel file, long position, long count) throws IOException {
        FileChannel source = file instanceof SocketEndpoint.FileView v ? v.source() : file;
        long n = fd.sendFile(source, position, count);
        if (n > 0) {
            loop.context().metrics().sendfileBytes += n;
        }
        return n;
    }

    @Override
    public void readInterest(boolean on) {
        reading = on;
        if (on && readReady && !inEvent && !closed) {
            queueResume(); // no edge will come for bytes that are already waiting
        }
    }

    @Override
    public void writeInterest(boolean on) {
        writing = on;
        fd.writeInterest(on);
    }

    @Override
    public void shutdownOutput() {
        fd.shutdownOutput();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        fd.close();
        loop.unlink(this);
        limit.release();
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }
}
