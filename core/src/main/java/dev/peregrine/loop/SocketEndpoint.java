package dev.peregrine.loop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One non-blocking connected socket as a transport offers it to a {@link Connection}. Buffers
 * passed in are direct; reads fill from {@code position()} to {@code limit()}, writes send from
 * {@code position()} to {@code limit()}, and both advance the position by the bytes moved.
 *
 * <p>Thread: the owning loop thread only.
 */
public interface SocketEndpoint extends java.util.function.Supplier<InetSocketAddress> {
    /** Reads what is available; returns the bytes read, 0 when none, -1 at end of stream. */
    int read(ByteBuffer dst) throws IOException;

    /** Writes what the socket takes now; returns the bytes written (possibly 0). */
    int write(ByteBuffer src) throws IOException;

    /**
     * Writes bytes the endpoint itself still holds from earlier {@link #write} calls (a TLS layer's
     * encrypted records); returns whether none remain. A plain socket holds none. The connection calls
     * this first whenever the socket is writable, and sends nothing of its own until it returns true.
     */
    default boolean flushBuffered() throws IOException {
        return true;
    }

    /** Whether the loop should report readability. */
    void readInterest(boolean on);

    /** Whether the loop should report writability (only while output is pending). */
    void writeInterest(boolean on);

    /** Sends FIN after the bytes already written; reading stays possible. */
    void shutdownOutput();

    /** Closes the socket and forgets its registration. Idempotent. */
    void close();

    /**
     * Sends up to {@code count} bytes of {@code file} from {@code position} straight to the socket
     * ({@code sendfile(2)} or the like), without passing them through the JVM. Returns the bytes sent
     * (0 when the socket takes none now), or -1 when this endpoint cannot send files directly (a TLS
     * endpoint, a transport without the call): the caller then copies through buffers.
     */
    default long transferFile(FileChannel file, long position, long count) throws IOException {
        return -1;
    }

    /**
     * A {@link FileChannel} that reads from another channel it shares with other responses (a cached
     * open file). An endpoint that sends files by descriptor ({@code sendfile(2)} outside the JDK) sends
     * from {@link #source()}, whose descriptor is the file's own; positional reads only, so sharing is safe.
     */
    interface FileView {
        /** The channel the view reads from: open at least as long as the view. */
        FileChannel source();
    }

    /**
     * The TLS error that made this endpoint close its connection (a certificate or host name the peer
     * could not be trusted with, no common protocol, a bad record), or null: none, or no TLS here. The
     * protocol asks in {@code onClosed} to tell such a failure from a reset.
     */
    default javax.net.ssl.SSLException tlsFailure() {
        return null;
    }

    /** The protocol TLS negotiated with ALPN (RFC 7301) once the handshake is done, or null. */
    default String applicationProtocol() {
        return null;
    }

    /**
     * The peer's address (cached). An endpoint may keep it in a compact form and make the object at the
     * first call: a request view asks only when its handler does ({@code RequestView.remoteFrom}), so an
     * idle connection whose requests never asked holds no address objects (issue 28's census).
     */
    InetSocketAddress remoteAddress();

    /** {@link #remoteAddress()}, as the request views take it (they name nothing of this package). */
    @Override
    default InetSocketAddress get() {
        return remoteAddress();
    }
}
