package dev.peregrine.transport;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Protocol;
import dev.peregrine.loop.SocketEndpoint;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The in-memory transport: a connection between two loops of one JVM with no socket, fasthttp's
 * {@code InmemoryListener} for the connection layer. Each side is an ordinary {@link Connection} over an
 * {@link End}, a {@link SocketEndpoint} that writes into its peer's {@link Ring} and wakes the peer's loop
 * through its task queue; everything above (TLS layers, protocols, timers, backpressure, the graceful
 * stop) is the same code as over TCP.
 * <pre>
 *   client loop                                   server loop
 *   Connection --write--&gt; [Ring c-&gt;s, 16 KiB] --task: onReadable--&gt; Connection (the listener's layer
 *   Connection &lt;--task: onReadable-- [Ring s-&gt;c] &lt;--write---------- Connection  and protocol)
 *   a full ring: write takes part, the writer waits for writability; the reader's take wakes it
 *   shutdownOutput: FIN after the ring's bytes; close: FIN for the peer, later writes to it fail (reset)
 * </pre>
 * Both connections are {@linkplain LoopContext#adopt adopted} by their loops, so a server's (or client's)
 * stop shuts them down and closes them like its sockets. Like the transports' endpoints, an {@link End}
 * ignores every event after its own close: the server's loop may reopen a closed plain connection for
 * another socket. They are not counted against
 * {@code maxConnections}, which bounds what remote peers open.
 *
 * <p>Thread: {@link #connect} on the client's loop; each {@link End} on its owning loop, but for the
 * wake-ups ({@code readable}, {@code room}) which the peer's loop calls.
 */
public final class MemoryPipe {
    /** Bytes one direction holds before the writer waits (per connection: two rings on the heap). */
    static final int RING_BYTES = 16 * 1024;
    /** Reads per wake-up before the loop serves other work (the epoll transport's cap). */
    private static final int READS_PER_TURN = 16;
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    private MemoryPipe() {
    }

    /**
     * Opens an in-memory connection from {@code client}'s loop to {@code server}'s: the server side is
     * accepted there as by its listener (its layer, its protocol), the client side speaks
     * {@code protocol} through {@code layer} (TLS, or null) and is reported to {@code callback} at once.
     * When either loop is stopping the callback hears "failed" (client side) or the connection ends
     * before its first byte (server side). Thread: {@code client}'s loop.
     */
    public static void connect(LoopContext client, EndpointLayer layer, Protocol protocol, LoopContext server,
                               ConnectCallback callback) {
        End near = new End(client);
        End far = new End(server);
        near.peer = far;
        far.peer = near;
        Ring toServer = new Ring();
        Ring toClient = new Ring();
        near.out = toServer;
        far.in = toServer;
        far.out = toClient;
        near.in = toClient;
        server.eventLoop().execute(far::acceptOnLoop);
        Connection c = client.newConnection(near, layer, protocol);
        near.connection = c;
        if (!client.adopt(c)) {
            c.close();
            callback.failed(new IOException("the client's loop is stopping"));
            return;
        }
        callback.connected(c);
    }

    /**
     * One direction's bytes: a circular buffer written by one loop and read by the other, under its
     * own lock (held for a copy only; the two loops rarely meet).
     */
    static final class Ring {
        private final byte[] data = new byte[RING_BYTES];
        private int head;
        private int size;
        /** The writer ended its output (shutdownOutput or close): end of stream once the bytes are read. */
        private boolean fin;
        /** The reader closed: writes fail as on a reset socket. */
        private boolean readerGone;

        synchronized int put(ByteBuffer src) throws IOException {
            if (readerGone) {
                throw new IOException("connection reset by peer (in-memory)");
            }
            int n = Math.min(src.remaining(), data.length - size);
            int tail = (head + size) % data.length;
            int first = Math.min(n, data.length - tail);
            src.get(data, tail, first);
            src.get(data, 0, n - first);
            size += n;
            return n;
        }

        /** Bytes taken into {@code dst}, or -1 at end of stream. */
        synchronized int take(ByteBuffer dst) {
            if (size == 0) {
                return fin ? -1 : 0;
            }
            int n = Math.min(dst.remaining(), size);
            int first = Math.min(n, data.length - head);
            dst.put(data, head, first);
            dst.put(data, 0, n - first);
            head = (head + n) % data.length;
            size -= n;
            return n;
        }

        synchronized boolean readable() {
            return size > 0 || fin;
        }

        synchronized boolean hasRoom() {
            return size < data.length || readerGone;
        }

        synchronized void end() {
            fin = true;
        }

        synchronized void readerClosed() {
            readerGone = true;
            size = 0;
        }
    }

    /** One side of the pipe, owned by one loop. */
    static final class End implements SocketEndpoint {
        private final LoopContext ctx;
        private final AtomicBoolean readQueued = new AtomicBoolean();
        private final AtomicBoolean writeQueued = new AtomicBoolean();
        private final Runnable readTask = this::readOnLoop;
        private final Runnable writeTask = this::writeOnLoop;
        // Volatile: set by the owner, read by the peer deciding whether to wake it; each side changes its
        // flag before looking at the ring, and the ring's lock orders the rest, so no wake-up is lost.
        private volatile boolean readInterest = true;
        private volatile boolean writeInterest;
        End peer;
        Ring in;
        Ring out;
        Connection connection;
        private boolean closed;

        End(LoopContext ctx) {
            this.ctx = ctx;
        }

        /** The server's loop accepts the connection as its listener would. Thread: the server's loop. */
        void acceptOnLoop() {
            Connection c = ctx.newConnection(this);
            connection = c;
            if (!ctx.adopt(c)) {
                c.close(); // the server is stopping: the client reads end of stream before any byte
                return;
            }
            readable(); // what the client wrote meanwhile
        }

        /** The peer wrote or ended: read on the owner's loop. Thread: any. */
        void readable() {
            if (readQueued.compareAndSet(false, true)) {
                ctx.eventLoop().execute(readTask);
            }
        }

        /** The peer took bytes: a writer waiting for room writes on. Thread: any. */
        void room() {
            if (writeInterest && writeQueued.compareAndSet(false, true)) {
                ctx.eventLoop().execute(writeTask);
            }
        }

        // Both tasks test this end's own 'closed', not the connection's state: a closed plain connection may
        // be reopened by its loop for another socket (loop/ConnectionRecycler), and a task queued before
        // this end closed must not reach it there.
        private void readOnLoop() {
            readQueued.set(false);
            Connection c = connection;
            if (c == null || closed) {
                return; // not accepted yet (acceptOnLoop reads), or over
            }
            try {
                for (int i = 0; i < READS_PER_TURN && readInterest && !closed && in.readable(); i++) {
                    if (!c.onReadable()) {
                        return;
                    }
                }
            } catch (RuntimeException e) {
                if (!closed) {
                    c.close(); // a protocol that throws costs its own connection only, as on the socket loops
                }
                return;
            }
            if (readInterest && !closed && in.readable()) {
                readable(); // more than a turn's worth: behind the loop's other work
            }
        }

        private void writeOnLoop() {
            writeQueued.set(false);
            Connection c = connection;
            if (c != null && !closed && writeInterest) {
                try {
                    c.onWritable();
                } catch (RuntimeException e) {
                    if (!closed) {
                        c.close();
                    }
                }
            }
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (closed) {
                throw new IOException("closed");
            }
            int n = in.take(dst);
            if (n > 0) {
                peer.room();
            }
            return n;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            if (closed) {
                throw new IOException("closed");
            }
            int n = out.put(src);
            if (n > 0) {
                peer.readable();
            }
            return n;
        }

        @Override
        public void readInterest(boolean on) {
            readInterest = on;
            if (on && in.readable()) {
                readable();
            }
        }

        @Override
        public void writeInterest(boolean on) {
            writeInterest = on;
            if (on && out.hasRoom()) {
                room(); // the peer took bytes before the flag was up
            }
        }

        @Override
        public void shutdownOutput() {
            out.end();
            peer.readable();
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            out.end();
            in.readerClosed();
            peer.readable();
            peer.room(); // a peer waiting to write learns of the reset
            if (connection != null) {
                ctx.forget(connection);
            }
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return PEER;
        }
    }
}
