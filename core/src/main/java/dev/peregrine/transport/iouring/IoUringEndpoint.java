package dev.peregrine.transport.iouring;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.transport.ConnectionLimit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One connection on an {@link IoUringEventLoop}: the {@link SocketEndpoint} its {@link Connection}
 * talks to, and the receiver of its socket's poll completions.
 *
 * <p><b>Input.</b> A one-shot read poll is armed whenever the socket has shown it is empty (a read
 * shorter than asked, {@code EAGAIN}), and at the start; its completion sets {@code readReady}, and
 * while that is set and the connection wants input, {@link #pump} calls {@link Connection#onReadable()},
 * which reads into the loop's read buffer (or the connection's lent one).
 * <pre>
 *   poll(in) completes ---&gt; readReady = true ---&gt; pump: while readReady &amp;&amp; reading: onReadable()
 *                                                 |- short read / EAGAIN: readReady = false, arm the poll
 *                                                 |- EOF or error: readReady = false, nothing armed again
 *                                                 |- onReadable() returned false (paused, closing) and no
 *                                                 |  layer under it (TLS) read the socket: stop, readReady kept
 *                                                 '- READS_PER_TURN reached: queue resume(), readReady kept
 *   readInterest(true) outside an event ---&gt; queue resume()       (backpressure lifted from a task)
 *   poll(out) completes ---&gt; onWritable(); armed again while output still waits
 * </pre>
 * A poll armed on a socket that is already readable completes at once, so the arming after a short
 * read loses nothing. A paused connection keeps its poll armed: its completion only sets
 * {@code readReady}. After a hang-up a short read no longer clears {@code readReady}: the end of stream
 * is queued behind the data, so reading goes on until it returns -1. After the end of stream no poll
 * is armed again (it would complete at once, forever).
 *
 * <p>An idle connection holds no buffer: only its armed poll, in the kernel.
 *
 * <p>Thread: the owning loop only.
 */
final class IoUringEndpoint implements SocketEndpoint, NettyIoUring.Readiness {
    /** Reads of one connection per turn before the loop's other sockets get theirs (fairness). */
    static final int READS_PER_TURN = 16;

    private final IoUringEventLoop loop;
    private final NettyIoUring.Fd fd;
    private final ConnectionLimit limit;
    private final Runnable resume = this::resume;
    private final InetSocketAddress remote;
    Connection connection;
    /** The loop's list of open endpoints (for shutdown). */
    IoUringEndpoint prev;
    IoUringEndpoint next;

    private boolean readReady;
    private boolean hungUp;
    private boolean reading = true;
    private boolean writing;
    private boolean inEvent;
    private boolean resumeQueued;
    private boolean closed;
    /** Reads of the socket that moved bytes (a TLS layer may read and hand the connection nothing yet). */
    private long socketReads;

    /** Takes over {@code fd}, whose slot in {@code limit} is released when it closes. */
    IoUringEndpoint(IoUringEventLoop loop, NettyIoUring.Fd fd, InetSocketAddress remote, ConnectionLimit limit) {
        this.loop = loop;
        this.fd = fd;
        this.remote = remote;
        this.limit = limit;
    }

    /** Arms the first read poll. */
    void start() {
        fd.armRead();
    }

    @Override
    public void ready(boolean in, boolean out, boolean hangup) {
        if (closed) {
            return;
        }
        inEvent = true;
        try {
            if (out) {
                if (writing) {
                    connection.onWritable();
                }
                if (writing && !closed) {
                    fd.armWrite();
                }
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
                return; // neither the connection nor a layer under it took bytes: readReady stays for later
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
        if (n < 0) {
            readReady = false;
        } else if (n == 0 || (n < asked && !hungUp)) {
            readReady = false; // the kernel has nothing more now: the poll tells when it has
            if (!closed) {
                fd.armRead();
            }
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return fd.write(src);
    }

    @Override
    public void readInterest(boolean on) {
        reading = on;
        if (on && readReady && !inEvent && !closed) {
            queueResume(); // bytes already shown: no poll completion will come for them
        }
    }

    @Override
    public void writeInterest(boolean on) {
        writing = on;
        if (on && !closed) {
            fd.armWrite(); // completes at once if the socket can take bytes already
        }
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
