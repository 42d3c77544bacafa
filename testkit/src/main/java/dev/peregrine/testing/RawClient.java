package dev.peregrine.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;

/**
 * One raw TCP connection to a server on 127.0.0.1, for wire-level tests: it writes exactly the bytes
 * it is given (a request split anywhere, garbage, a half-finished head), reads responses framed as
 * {@link RawResponse} describes, and ends the connection the way the test needs: half-close (FIN,
 * still reading), close, or reset (RST).
 *
 * <pre>{@code
 * try (RawClient c = new RawClient(server.port())) {
 *     RawResponse r = c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read();
 *     assertEquals(200, r.status);
 *     c.halfClose();
 *     assertTrue(c.closedByServer());
 * }
 * }</pre>
 *
 * Every read blocks for at most {@link #READ_TIMEOUT_MS}, a bound only a broken server reaches, so a
 * hang fails the test instead of the build. Not thread-safe: one thread writes and reads (a test may
 * write from one thread and read from another, as a socket allows).
 */
public final class RawClient implements AutoCloseable {
    /** Longest a connect or a read may block, milliseconds. */
    public static final int READ_TIMEOUT_MS = 30_000;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /** Connects to {@code port} on 127.0.0.1, TCP_NODELAY on. */
    public RawClient(int port) throws IOException {
        this(port, 0);
    }

    /** @param receiveBuffer SO_RCVBUF to ask for before connecting (a small one makes the server wait), 0 for the default */
    public RawClient(int port, int receiveBuffer) throws IOException {
        socket = connect(port, receiveBuffer);
        in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        out = socket.getOutputStream();
    }

    /**
     * A plain socket connected to {@code port} on 127.0.0.1, TCP_NODELAY on, reads bounded by
     * {@link #READ_TIMEOUT_MS}: for tests that drive the streams themselves.
     */
    public static Socket connect(int port) throws IOException {
        return connect(port, 0);
    }

    private static Socket connect(int port, int receiveBuffer) throws IOException {
        Socket s = new Socket();
        try {
            if (receiveBuffer > 0) {
                s.setReceiveBufferSize(receiveBuffer);
            }
            s.setTcpNoDelay(true);
            s.setSoTimeout(READ_TIMEOUT_MS);
            s.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MS);
            return s;
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /** ISO-8859-1 bytes of {@code s}: one byte per char, so {@code \r\n} and any octet go out as written. */
    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Whether a connection to {@code port} on 127.0.0.1 is refused (nothing listens there). */
    public static boolean refuses(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Writes {@code ascii} as ISO-8859-1 bytes, at once. */
    public RawClient send(String ascii) throws IOException {
        return send(bytes(ascii));
    }

    /** Writes {@code bytes} at once. */
    public RawClient send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Reads one response to a request other than HEAD; throws if the connection ends first. */
    public RawResponse read() throws IOException {
        return RawResponse.read(in, false);
    }

    /** Reads one response; {@code head}: it answers a HEAD request (no body). */
    public RawResponse read(boolean head) throws IOException {
        return RawResponse.read(in, head);
    }

    /** Reads a response head alone, as text (see {@link RawResponse#readHead}). */
    public String readHead() throws IOException {
        return RawResponse.readHead(in);
    }

    /** Reads one chunk's data; empty for the last chunk (see {@link RawResponse#readChunk}). */
    public byte[] readChunk() throws IOException {
        return RawResponse.readChunk(in);
    }

    /** Reads exactly {@code n} bytes; throws if the connection ends first. */
    public byte[] readExactly(int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new IOException("connection closed after " + b.length + " of " + n + " bytes");
        }
        return b;
    }

    /** Everything until the server closes, as ISO-8859-1 text. */
    public String readToEnd() throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    /** Bytes that can be read without blocking. */
    public int available() throws IOException {
        return in.available();
    }

    /**
     * Whether the server closed the connection with nothing more to say: the next read sees the end of
     * the stream or a reset (a byte instead answers false).
     */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketException e) {
            return true; // reset by peer
        }
    }

    /**
     * Reads and discards whatever the server still sends (responses the test never read) until it
     * closes; true once it did (end of stream or reset). A server that neither sends nor closes fails
     * the read after {@link #READ_TIMEOUT_MS}.
     */
    public boolean discardUntilClosed() throws IOException {
        try {
            byte[] sink = new byte[64 * 1024];
            while (in.read(sink) >= 0) {
                // discarded
            }
            return true;
        } catch (SocketException e) {
            return true; // reset by peer
        }
    }

    /** Sends FIN (shutdownOutput) and keeps reading: the client has said everything, as {@code printf ... | nc} does. */
    public void halfClose() throws IOException {
        socket.shutdownOutput();
    }

    /** Closes with RST (SO_LINGER 0) instead of FIN. */
    public void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    /** The socket, for options a test sets itself. */
    public Socket socket() {
        return socket;
    }

    /** The (buffered) input: read through this, not the socket's own stream, or buffered bytes are missed. */
    public InputStream input() {
        return in;
    }

    /** The socket's output, unbuffered. */
    public OutputStream output() {
        return out;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
