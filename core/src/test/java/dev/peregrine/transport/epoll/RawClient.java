package dev.peregrine.transport.epoll;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A blocking HTTP/1.1 test client on a raw {@link Socket}: writes bytes exactly as given and reads
 * responses framed by {@code Content-Length}. Every read has a generous timeout, so a server that
 * stalls fails the test instead of hanging it.
 */
final class RawClient implements AutoCloseable {
    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RawClient(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(30_000);
        socket.setTcpNoDelay(true);
        in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
        out = socket.getOutputStream();
    }

    void send(String ascii) throws IOException {
        send(ascii.getBytes(StandardCharsets.ISO_8859_1));
    }

    void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** One response: status line and headers as text, body as bytes. */
    static final class Response {
        final String head;
        final byte[] body;

        Response(String head, byte[] body) {
            this.head = head;
            this.body = body;
        }

        int status() {
            return Integer.parseInt(head.substring(9, 12));
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** Reads one response; fails if the stream ends first. */
    Response read() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("end of stream inside a response head: " + head);
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : h.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new IOException("end of stream inside a body of " + length + " bytes");
        }
        return new Response(h, body);
    }

    /** Whether the server closed the connection: the next read sees end of stream (or a reset). */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (java.net.SocketException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
