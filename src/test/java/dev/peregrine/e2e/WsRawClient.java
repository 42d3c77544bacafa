package dev.peregrine.e2e;

import dev.peregrine.testing.RawClient;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * A WebSocket client on a raw socket for the tests: writes exact (masked or not) frames, reads the
 * server's frames strictly, and says how the connection ended. Reads are bounded by RawClient's 30 s.
 */
final class WsRawClient implements Closeable {
    static final String KEY = "dGhlIHNhbXBsZSBub25jZQ==";
    /** RFC 6455 §1.3's example: the accept value for {@link #KEY}. */
    static final String ACCEPT = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

    final Socket socket;
    final InputStream in;
    final OutputStream out;
    /** The handshake response's head. */
    final String head;
    private final Random random = new Random(42);

    private WsRawClient(Socket socket, String head) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.head = head;
    }

    /** Connects and sends a handshake for {@code path} with {@code extraHeaders} (CRLF-terminated lines). */
    static WsRawClient open(int port, String path, String extraHeaders) throws IOException {
        Socket s = RawClient.connect(port);
        s.getOutputStream().write(handshake(path, extraHeaders).getBytes(StandardCharsets.US_ASCII));
        String head = readHead(s.getInputStream());
        if (!head.startsWith("HTTP/1.1 101 ")) {
            s.close();
            throw new IOException("no 101: " + head);
        }
        return new WsRawClient(s, head);
    }

    static String handshake(String path, String extraHeaders) {
        return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: " + KEY + "\r\nSec-WebSocket-Version: 13\r\n" + extraHeaders + "\r\n";
    }

    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("head cut short: " + b);
            }
            b.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : (c == '\r' ? 1 : 0);
        }
        return b.toString(StandardCharsets.US_ASCII);
    }

    /** A client frame: {@code b0} is byte 0 (FIN, RSV, opcode); masked with a random key unless {@code mask} is false. */
    byte[] frame(int b0, byte[] payload, boolean mask) {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write(b0);
        int m = mask ? 0x80 : 0;
        int n = payload.length;
        if (n < 126) {
            f.write(m | n);
        } else if (n <= 0xFFFF) {
            f.write(m | 126);
            f.write(n >>> 8);
            f.write(n);
        } else {
            f.write(m | 127);
            for (int shift = 56; shift >= 0; shift -= 8) {
                f.write((int) ((long) n >>> shift));
            }
        }
        byte[] key = new byte[4];
        random.nextBytes(key);
        if (mask) {
            f.write(key, 0, 4);
        }
        for (int i = 0; i < n; i++) {
            f.write(mask ? payload[i] ^ key[i & 3] : payload[i]);
        }
        return f.toByteArray();
    }

    void send(int b0, byte[] payload) throws IOException {
        out.write(frame(b0, payload, true));
    }

    void sendText(String s) throws IOException {
        send(0x81, s.getBytes(StandardCharsets.UTF_8));
    }

    void write(byte[] bytes) throws IOException {
        out.write(bytes);
    }

    /** Byte 0 of the frame read, and its payload. */
    record Frame(int b0, byte[] payload) {
        int opcode() {
            return b0 & 0x0F;
        }

        String text() {
            return new String(payload, StandardCharsets.UTF_8);
        }

        int closeCode() {
            return payload.length < 2 ? 1005 : ((payload[0] & 0xFF) << 8) | (payload[1] & 0xFF);
        }
    }

    /** The server's next frame (which must be unmasked, §5.1). */
    Frame read() throws IOException {
        int b0 = readByte();
        int b1 = readByte();
        if ((b1 & 0x80) != 0) {
            throw new IOException("the server masked a frame");
        }
        long n = b1 & 0x7F;
        if (n == 126) {
            n = (readByte() << 8) | readByte();
        } else if (n == 127) {
            n = 0;
            for (int i = 0; i < 8; i++) {
                n = (n << 8) | readByte();
            }
        }
        byte[] p = in.readNBytes((int) n);
        if (p.length != n) {
            throw new EOFException("frame cut short");
        }
        return new Frame(b0, p);
    }

    private int readByte() throws IOException {
        int c = in.read();
        if (c < 0) {
            throw new EOFException("connection ended");
        }
        return c;
    }

    /** Reads frames until a close frame; returns its code. */
    int readCloseCode() throws IOException {
        while (true) {
            Frame f = read();
            if (f.opcode() == 8) {
                return f.closeCode();
            }
        }
    }

    /** Whether the server ended the connection (EOF or reset) with nothing more to read. */
    boolean endedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketException e) {
            return true; // reset
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
