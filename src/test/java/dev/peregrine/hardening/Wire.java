package dev.peregrine.hardening;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.BooleanSupplier;

/**
 * A raw HTTP/1.1 client connection for wire-level tests: writes exact bytes, reads one response at a
 * time (Content-Length framed, as Peregrine always sends), and tells whether the server closed.
 * Reads block for at most {@link #READ_LIMIT_MS}, a generous bound that only a broken server reaches.
 */
final class Wire implements AutoCloseable {
    static final int READ_LIMIT_MS = 30_000;

    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Wire(int port) throws IOException {
        this(port, 0);
    }

    /** @param receiveBuffer SO_RCVBUF to ask for before connecting, 0 for the default */
    Wire(int port, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.connect(new InetSocketAddress("127.0.0.1", port), READ_LIMIT_MS);
        socket.setSoTimeout(READ_LIMIT_MS);
        socket.setTcpNoDelay(true);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    Wire send(String ascii) throws IOException {
        return send(ascii.getBytes(StandardCharsets.ISO_8859_1));
    }

    Wire send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
        return this;
    }

    /** Bytes waiting to be read without blocking. */
    int available() throws IOException {
        return in.available();
    }

    /** Reads one response; throws if the connection ends first. */
    Response read() throws IOException {
        String head = readHead();
        if (head == null) {
            throw new IOException("connection closed before a response");
        }
        Response r = new Response(head);
        byte[] body = in.readNBytes(r.contentLength());
        if (body.length != r.contentLength()) {
            throw new IOException("body cut short: " + body.length + " of " + r.contentLength());
        }
        r.body = body;
        return r;
    }

    /** Reads exactly {@code n} bytes; throws if the connection ends first. */
    byte[] readExactly(int n) throws IOException {
        byte[] b = in.readNBytes(n);
        if (b.length != n) {
            throw new IOException("connection closed after " + b.length + " of " + n + " bytes");
        }
        return b;
    }

    /** Whether the server closed the connection: reads to EOF (a reset counts as closed), discarding. */
    boolean closedByServer() throws IOException {
        try {
            byte[] buf = new byte[8192];
            while (in.read(buf) >= 0) {
                // discard until EOF
            }
            return true;
        } catch (SocketException e) {
            return true; // reset by peer
        }
    }

    private String readHead() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int c = in.read();
            if (c < 0) {
                return b.size() == 0 ? null : failShort(b);
            }
            b.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    private static String failShort(ByteArrayOutputStream b) throws IOException {
        throw new IOException("connection closed inside a response head: " + b.toString(StandardCharsets.ISO_8859_1));
    }

    /** Closes with RST (SO_LINGER 0) instead of FIN. */
    void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** Whether a connection to {@code port} on 127.0.0.1 is refused (the listener is closed). */
    static boolean refuses(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Polls {@code condition} every 10 ms for up to 30 s; fails with {@code what} if it never holds. */
    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
        }
    }

    /** One parsed response. */
    static final class Response {
        final String head;
        final int status;
        byte[] body;

        Response(String head) {
            this.head = head;
            this.status = Integer.parseInt(head.substring(9, 12));
        }

        String header(String name) {
            String lower = head.toLowerCase(Locale.ROOT);
            int i = lower.indexOf("\r\n" + name.toLowerCase(Locale.ROOT) + ":");
            if (i < 0) {
                return null;
            }
            int start = i + name.length() + 3;
            return head.substring(start, head.indexOf("\r\n", start)).trim();
        }

        int contentLength() {
            String v = header("Content-Length");
            return v == null ? 0 : Integer.parseInt(v);
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }
}
