package dev.peregrine.offloop;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A raw socket to the server, for wire-level assertions. */
final class RawClient implements AutoCloseable {
    final Socket socket;
    final InputStream in;
    final OutputStream out;

    RawClient(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(60_000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
    }

    void send(String wire) throws IOException {
        out.write(wire.getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
    }

    /** Reads one response framed by Content-Length (no chunked); returns head and body as text. */
    String readResponse() throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("closed after " + head);
            }
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : h.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        return h + new String(body, StandardCharsets.ISO_8859_1);
    }

    /** Reads until the server closes. */
    String readToEnd() throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
