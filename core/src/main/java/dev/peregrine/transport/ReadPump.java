package dev.peregrine.transport;

import dev.peregrine.loop.Connection;

/**
 * The read side every native endpoint (epoll, io_uring) shares: remembers that the socket has input
 * until the kernel has shown there is no more, and calls {@link Connection#onReadable()} while it has
 * and the connection wants input, at most {@link #READS_PER_TURN} times before the loop's other sockets
 * get their turn. One per connection; it is also the connection's place in its loop's list
 * ({@link NativeEventLoop}) and the task that comes back for input left unread, so it costs no object
 * the endpoints did not have before.
 * <pre>
 *   event(in) ---&gt; readReady = true ---&gt; pump: while readReady &amp;&amp; reading: onReadable()
 *                                             |- the endpoint's read was short / EAGAIN / EOF:
 *                                             |  readReady = false ({@link #read}), stop
 *                                             |- onReadable() returned false (the connection takes
 *                                             |  no input now: paused, closing) and no layer under it
 *                                             |  (TLS) read the socket either: stop, readReady kept
 *                                             '- READS_PER_TURN reached: queue run() behind the
 *                                                loop's other work, readReady kept
 *   readInterest(true) outside an event ---&gt; queue run()      (backpressure lifted from a task)
 * </pre>
 * After a hang-up ({@code EPOLLRDHUP}, {@code POLLHUP}, an error) a short read no longer clears
 * {@code readReady}: the end of stream is queued behind the data and no further event would announce
 * it, so reading goes on until it returns -1.
 *
 * <p>Thread: the owning loop only.
 */
public final class ReadPump implements Runnable {
    /** Reads of one connection per turn before the loop's other sockets get theirs (fairness). */
    public static final int READS_PER_TURN = 16;

    // The loop is the endpoint's (NativeEndpoint#owner): no field for it, and socketReads an int, keep
    // this object at 40 bytes (issue 28: every idle connection holds one).
    final NativeEndpoint endpoint;
    /** The connection reading through this pump; set once, right after the endpoint is made. */
    public Connection connection;
    /** The loop's list this pump is in (open or lingering), for its stop. */
    ReadPump prev;
    ReadPump next;

    private boolean readReady;
    private boolean hungUp;
    private boolean reading = true;
    private boolean inEvent;
    private boolean resumeQueued;
    private boolean closed;
    /**
     * Reads of the socket that moved bytes. A layer (TLS) may read the socket and hand the connection
     * no plaintext yet: the socket still moved, so the pump goes on while it does.
     */
    private int socketReads;

    public ReadPump(NativeEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * The socket reported something: {@code onWritable()} first when {@code writable}, then, when
     * {@code in}, input is remembered and pumped. What the connection throws costs the connection only.
     */
    public void event(boolean writable, boolean in, boolean hangup) {
        if (closed) {
            return;
        }
        inEvent = true;
        try {
            if (writable) {
                connection.onWritable();
            }
            if (in) {
                readReady = true;
                hungUp |= hangup;
            }
            pump();
        } catch (Throwable t) {
            endpoint.owner().connectionFailed(connection, t);
        } finally {
            inEvent = false;
        }
    }

    /** Comes back for input left unread by the fairness cap or a lifted pause. Runs as a loop task. */
    @Override
    public void run() {
        resumeQueued = false;
        event(false, false, false);
    }

    private void pump() {
        int turns = 0;
        while (readReady && reading && !closed) {
            if (turns++ == READS_PER_TURN) {
                queueResume();
                return;
            }
            int before = socketReads; // compared for a change only: wrapping is harmless
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
            if (!endpoint.owner().executeOrDrop(this)) {
                resumeQueued = false;
            }
        }
    }

    /**
     * {@code SocketEndpoint.read}: reads the socket ({@link NativeEndpoint#readSocket}) and accounts for
     * it; when the kernel has shown the socket empty, readiness is cleared and the endpoint hears
     * {@link NativeEndpoint#readDrained}.
     */
    public int read(java.nio.ByteBuffer dst) throws java.io.IOException {
        int asked = dst.remaining();
        if (asked == 0) {
            return 0;
        }
        int n;
        try {
            n = endpoint.readSocket(dst);
        } catch (java.io.IOException e) {
            readReady = false;
            throw e;
        }
        if (afterRead(n, asked) && !closed) {
            endpoint.readDrained();
        }
        return n;
    }

    /**
     * Accounts for a read of the socket that returned {@code n} of {@code asked} bytes. Returns true when
     * the kernel has shown it holds nothing more now (0, or a short read before any hang-up; not at end of
     * stream): readReady is cleared and the next event, or an armed poll, brings more.
     */
    private boolean afterRead(int n, int asked) {
        if (n != 0) {
            socketReads++;
        }
        if (n < 0) {
            readReady = false;
            return false;
        }
        if (n == 0 || (n < asked && !hungUp)) {
            readReady = false;
            return true;
        }
        return false;
    }

    /** {@code SocketEndpoint.readInterest}: whether the connection takes input. */
    public void readInterest(boolean on) {
        reading = on;
        if (on && readReady && !inEvent && !closed) {
            queueResume(); // no event will come for bytes that are already waiting
        }
    }

    /** The endpoint closed: nothing is pumped any more. */
    public void close() {
        closed = true;
    }

    /** Whether the endpoint closed. */
    public boolean closed() {
        return closed;
    }
}
