package dev.peregrine.teleport;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.offloop.BodySource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Where one teleport response is gathered whole before it becomes a RESPONSE frame, when the code that
 * writes it is the server's off-loop and body code ({@code offloop}: an exchange of a blocking or async
 * handler, a file, a producer, a handler's output stream), which writes to a {@link Connection}. The
 * capture is that connection: a {@link Connection#detached detached} one on the loop, whose endpoint is
 * this object and keeps every write in a direct buffer that grows by doubling up to the peer's max
 * frame. The loop's shared write buffer is only borrowed: {@link #collect} empties it into the
 * message before the loop task that wrote it ends.
 * <pre>
 *   encoder / BodySource --&gt; loop's write buffer --drain / collect()--&gt; write(): message (grows)
 *                                                       past the cap: overflowed, write takes nothing
 *                                                       (the body's pump stops at the backlog)
 *   message [0, length()) --&gt; the protocol frames it (RESPONSE, the request's id)
 * </pre>
 * Past the cap the response cannot be carried: the protocol answers that request 500 instead (the
 * capture is then {@link #release released}, giving back what the refused write left pending). If
 * off-loop code closes the capture's connection (a stream that failed or timed out after its head),
 * {@link Owner#captureClosed} is told.
 *
 * <p>Thread: the loop thread.
 */
final class ResponseCapture implements SocketEndpoint, UntimedProtocol {
    /** Told when off-loop code gave up on the response by closing the capture. */
    interface Owner {
        void captureClosed();
    }

    private final Connection peer;
    private final Owner owner;
    private final int cap;
    private final Connection conn;
    private ByteBuffer message = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
    private boolean overflowed;
    private boolean closing;

    /** A capture for a response to {@code peer}'s client, of at most {@code cap} bytes. */
    ResponseCapture(Connection peer, int cap, Owner owner) {
        this.peer = peer;
        this.cap = cap;
        this.owner = owner;
        this.conn = Connection.detached(peer.context(), this, this);
    }

    /** The connection off-loop code writes the response to. */
    Connection connection() {
        return conn;
    }

    /** Moves what the loop's write buffer holds (all of it this capture's) into the message. */
    void collect() {
        conn.flushBatch();
    }

    /**
     * Pumps a body that never waits for its producer (a file, a {@code BodyProducer}) until it is all
     * in the message; false when it overflowed the cap (the body is then aborted).
     *
     * @throws IOException from the body (a producer that failed, a file that shrank): it is aborted
     */
    boolean pumpAll(BodySource body) throws IOException {
        try {
            while (!overflowed) {
                boolean done = body.pump(conn);
                collect();
                if (done && !overflowed) {
                    return true;
                }
                if (!done && !overflowed && conn.pendingOutput() == 0) {
                    throw new IOException("body stopped without waiting for the socket");
                }
            }
        } catch (IOException | RuntimeException e) {
            body.abort();
            throw e;
        }
        body.abort();
        return false;
    }

    boolean overflowed() {
        return overflowed;
    }

    /** The message: bytes {@code [0, length())}. */
    ByteBuffer message() {
        return message;
    }

    int length() {
        return message.position();
    }

    /** Done with: frees what a refused write left pending (the owner is not told). Call after {@link #collect}. */
    void release() {
        closing = true;
        conn.close();
    }

    // ---------------------------------------------------------------- SocketEndpoint

    @Override
    public int write(ByteBuffer src) {
        int n = src.remaining();
        if (overflowed || (long) message.position() + n > cap) {
            overflowed = true;
            return 0; // kept as the connection's backlog: a body's pump stops there
        }
        if (message.remaining() < n) {
            ByteBuffer bigger = ByteBuffer.allocateDirect((int) Math.min(cap, Math.max(2L * message.capacity(), message.position() + (long) n)))
                    .order(ByteOrder.LITTLE_ENDIAN);
            message.flip();
            bigger.put(message);
            message = bigger;
        }
        message.put(src);
        return n;
    }

    @Override
    public int read(ByteBuffer dst) {
        return 0;
    }

    @Override
    public void readInterest(boolean on) {
    }

    @Override
    public void writeInterest(boolean on) {
    }

    @Override
    public void shutdownOutput() {
    }

    @Override
    public void close() {
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return peer.endpoint().remoteAddress();
    }

    // ---------------------------------------------------------------- Protocol (nothing is ever read)

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        return end;
    }

    @Override
    public void onInputOverflow(Connection c) {
    }

    @Override
    public void onEndOfInput(Connection c) {
    }

    @Override
    public void onShutdown(Connection c) {
    }

    @Override
    public void onClosed(Connection c) {
        if (!closing) {
            owner.captureClosed();
        }
    }
}
