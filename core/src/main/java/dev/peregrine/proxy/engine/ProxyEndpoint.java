package dev.peregrine.proxy.engine;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LayeredEndpoint;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.proxy.ProxyHeader;
import dev.peregrine.proxy.ProxyHeaderDecoder;
import dev.peregrine.proxy.ProxyProtocol;
import dev.peregrine.proxy.ProxyProtocolException;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One accepted socket of a PROXY-protocol listener: reads the header before anything above it (the
 * HTTP/1.1 protocol, or TLS) sees a byte, then passes bytes through untouched.
 *
 * <pre>
 *   accept -- peer not trusted --------------------------------------&gt; REJECTED (closed at once, DEBUG)
 *     |
 *     v
 *   AWAITING: socket read into {@code head} (lent by the pool), decoded from its first byte
 *     |          (restartable, {@link ProxyHeaderDecoder}); reads return 0 to the layer above
 *     |-- malformed / too long / EOF -----------------------------------&gt; closed (DEBUG)
 *     v  header whole
 *   LEFTOVER: bytes read past the header are handed up first (then head goes back to the pool)
 *     v
 *   PASS: every call goes straight to the socket
 * </pre>
 * Reads of the header never take more than the header can need: the 16-byte fixed part, then exactly
 * the v2 length, or up to 107 bytes for v1 (its end is found only by its CRLF). A v1 header is
 * therefore the only one that can leave bytes behind; when the caller's buffer cannot take them all,
 * the endpoint asks for another {@link Connection#onReadable} itself, as {@link LayeredEndpoint} requires.
 *
 * <p>While the header is awaited the connection above is idle, so its idle timeout (or TLS's handshake
 * timeout) bounds a peer that sends nothing. Thread: the owning loop only.
 */
final class ProxyEndpoint implements LayeredEndpoint {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.proxy");
    private static final int AWAITING = 0;
    private static final int LEFTOVER = 1;
    private static final int PASS = 2;
    private static final int REJECTED = 3;

    private final SocketEndpoint socket;
    private final LoopContext ctx;
    private final ProxyHeaderDecoder decoder;
    private final int maxLength;
    private Connection connection;
    private int state = AWAITING;
    /** The header's bytes so far at {@code [0, headEnd)}, then the leftover at {@code [leftFrom, headEnd)}. */
    private ByteBuffer head;
    private int headEnd;
    private int leftFrom;
    private boolean readWanted = true;
    private boolean readAgainScheduled;
    /** The original client from the header; null: the socket's peer stands. */
    private InetSocketAddress client;

    ProxyEndpoint(SocketEndpoint socket, LoopContext ctx, ProxyProtocol settings) {
        this.socket = socket;
        this.ctx = ctx;
        this.maxLength = settings.maxHeaderLength();
        this.decoder = new ProxyHeaderDecoder(maxLength);
        InetSocketAddress peer = socket.remoteAddress();
        if (peer == null || !settings.trusts(peer.getAddress())) {
            state = REJECTED;
            ctx.metrics().proxyUntrusted++;
            if (dev.peregrine.jfr.PeregrineEvents.rejections()) {
                dev.peregrine.jfr.PeregrineEvents.rejected(0, "PROXY: untrusted source", peer);
            }
            LOG.log(System.Logger.Level.DEBUG, "PROXY: closing {0}: not a trusted source ({1})", peer, settings.trusted());
        }
    }

    @Override
    public void attach(Connection connection) {
        this.connection = connection;
        if (state == REJECTED) {
            // Not from here: the transport registers the connection after building it.
            ctx.eventLoop().execute(connection::close);
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (state == PASS) {
            return socket.read(dst);
        }
        if (state == REJECTED) {
            throw new IOException("PROXY: untrusted source");
        }
        if (state == AWAITING) {
            int r = readHeader();
            if (r <= 0) {
                return r;
            }
        }
        return handUp(dst);
    }

    /**
     * Reads and decodes: 1 once the header is whole, 0 while more is needed, -1 when the peer ended
     * first. Throws (the connection closes) when the header is bad.
     */
    private int readHeader() throws IOException {
        if (head == null) {
            head = ctx.pool().acquire(maxLength);
        }
        while (true) {
            head.limit(wanted()).position(headEnd);
            int n = socket.read(head);
            if (n < 0) {
                LOG.log(System.Logger.Level.DEBUG, "PROXY: {0} closed before its header was whole ({1} bytes)",
                        socket.remoteAddress(), headEnd);
                release();
                return -1;
            }
            if (n == 0) {
                return 0;
            }
            headEnd += n;
            ProxyHeader header;
            try {
                header = decoder.decode(head, 0, headEnd);
            } catch (ProxyProtocolException e) {
                ctx.metrics().proxyMalformed++;
                if (dev.peregrine.jfr.PeregrineEvents.rejections()) {
                    dev.peregrine.jfr.PeregrineEvents.rejected(0, "PROXY: " + e.getMessage(), socket.remoteAddress());
                }
                LOG.log(System.Logger.Level.DEBUG, "PROXY: closing {0}: {1}", socket.remoteAddress(), e.getMessage());
                release();
                throw new IOException("PROXY: " + e.getMessage());
            }
            if (header != null) {
                if (!header.local()) {
                    client = header.source();
                }
                leftFrom = header.length();
                state = LEFTOVER;
                return 1;
            }
        }
    }

    /** How many bytes the header may need in all, given what has arrived. */
    private int wanted() {
        if (headEnd < ProxyHeaderDecoder.V2_FIXED_LENGTH) {
            return ProxyHeaderDecoder.V2_FIXED_LENGTH;
        }
        if (head.get(0) == 'P') {
            return ProxyHeaderDecoder.V1_MAX_LENGTH;
        }
        // v2: a length above maxLength has been refused by the decoder before this is reached
        return ProxyHeaderDecoder.V2_FIXED_LENGTH + (((head.get(14) & 0xFF) << 8) | (head.get(15) & 0xFF));
    }

    /** Hands up the bytes read past the header, then what the socket has, and moves to PASS. */
    private int handUp(ByteBuffer dst) throws IOException {
        int n = 0;
        if (head != null) {
            n = Math.min(headEnd - leftFrom, dst.remaining());
            dst.put(dst.position(), head, leftFrom, n);
            dst.position(dst.position() + n);
            leftFrom += n;
            if (leftFrom < headEnd) {
                scheduleReadAgain(); // no readiness event will come for bytes held here
                return n;
            }
            release();
        }
        state = PASS;
        if (!dst.hasRemaining()) {
            return n;
        }
        int m = socket.read(dst);
        if (m < 0 && n > 0) {
            scheduleReadAgain(); // the end of stream is reported by the next read (sockets repeat it)
            return n;
        }
        return m < 0 ? m : n + m;
    }

    private void scheduleReadAgain() {
        if (!readAgainScheduled) {
            readAgainScheduled = true;
            ctx.eventLoop().execute(this::readAgain);
        }
    }

    private void readAgain() {
        readAgainScheduled = false;
        if (readWanted && !connection.isClosed()) {
            connection.onReadable();
        }
    }

    private void release() {
        if (head != null) {
            ctx.pool().release(head);
            head = null;
        }
    }

    /** The header's source, or the socket's peer (no header yet, {@code LOCAL} or {@code UNKNOWN}). */
    @Override
    public InetSocketAddress remoteAddress() {
        return client != null ? client : socket.remoteAddress();
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return socket.write(src);
    }

    @Override
    public boolean flushBuffered() throws IOException {
        return socket.flushBuffered();
    }

    @Override
    public void readInterest(boolean on) {
        readWanted = on;
        socket.readInterest(on);
        if (on && state == LEFTOVER) {
            scheduleReadAgain();
        }
    }

    @Override
    public void writeInterest(boolean on) {
        socket.writeInterest(on);
    }

    @Override
    public void shutdownOutput() {
        socket.shutdownOutput();
    }

    @Override
    public void close() {
        release();
        socket.close();
    }

    @Override
    public long transferFile(FileChannel file, long position, long count) throws IOException {
        return socket.transferFile(file, position, count);
    }

    @Override
    public String applicationProtocol() {
        return socket.applicationProtocol();
    }
}
