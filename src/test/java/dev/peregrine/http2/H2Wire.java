package dev.peregrine.http2;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A raw HTTP/2 client over a plain socket, independent of the server's codec (an oracle): writes
 * frames byte by byte as RFC 9113 §4.1 draws them, with field blocks as HPACK literals without
 * indexing or Huffman (RFC 7541 §6.2.2), and reads frames back. Every read is bounded by 20 s.
 */
final class H2Wire implements AutoCloseable {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** One frame read: type, flags, stream, payload. */
    record Frame(int type, int flags, int stream, byte[] payload) {
        int int32(int at) {
            return (payload[at] & 0xff) << 24 | (payload[at + 1] & 0xff) << 16 | (payload[at + 2] & 0xff) << 8 | (payload[at + 3] & 0xff);
        }

        boolean endStream() {
            return (flags & 1) != 0;
        }
    }

    final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    H2Wire(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(20_000);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    /** Preface and an empty SETTINGS. */
    H2Wire start() throws IOException {
        out.write(PREFACE);
        frame(4, 0, 0, new byte[0]);
        return this;
    }

    void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        out.write(header(payload.length, type, flags, stream));
        out.write(payload);
        out.flush();
    }

    static byte[] header(int length, int type, int flags, int stream) {
        return new byte[] {(byte) (length >>> 16), (byte) (length >>> 8), (byte) length, (byte) type, (byte) flags,
            (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream};
    }

    static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    /** A field block of literals without indexing (RFC 7541 §6.2.2), names and values under 127 bytes... or longer. */
    static byte[] block(String... nameValues) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < nameValues.length; i += 2) {
            b.write(0);
            string(b, nameValues[i]);
            string(b, nameValues[i + 1]);
        }
        return b.toByteArray();
    }

    private static void string(ByteArrayOutputStream b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        int v = bytes.length;
        if (v < 127) {
            b.write(v);
        } else {
            b.write(127);
            v -= 127;
            while (v >= 128) {
                b.write((v & 0x7f) | 0x80);
                v >>>= 7;
            }
            b.write(v);
        }
        b.writeBytes(bytes);
    }

    /** A GET request's fields. */
    static byte[] get(String path) {
        return block(":method", "GET", ":scheme", "http", ":path", path, ":authority", "localhost");
    }

    void headers(int stream, boolean endStream, byte[] block) throws IOException {
        frame(1, 4 | (endStream ? 1 : 0), stream, block);
    }

    /** The next frame; throws EOFException when the server closed. */
    Frame read() throws IOException {
        byte[] h = new byte[9];
        in.readFully(h);
        int length = (h[0] & 0xff) << 16 | (h[1] & 0xff) << 8 | (h[2] & 0xff);
        byte[] p = new byte[length];
        in.readFully(p);
        return new Frame(h[3] & 0xff, h[4] & 0xff, ((h[5] & 0x7f) << 24) | (h[6] & 0xff) << 16 | (h[7] & 0xff) << 8 | (h[8] & 0xff), p);
    }

    /**
     * Sends an HTTP/1.1 request for {@code target} asking {@code Upgrade: h2c} with {@code settings} (a
     * SETTINGS payload) and returns the answer's head, read byte by byte up to its empty line (the
     * frames after it stay unread).
     */
    String upgrade(String target, byte[] settings) throws IOException {
        out.write(("GET " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
                + "HTTP2-Settings: " + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(settings) + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            head.append((char) in.readUnsignedByte());
        }
        return head.toString();
    }

    /** Writes {@code bytes} as they are. */
    void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /**
     * The next frame, its header checked before its payload is read: a length above {@code maxLength}
     * or an unknown type means the frame stream lost its alignment (an AssertionError naming where).
     */
    Frame readAligned(int maxLength, long at) throws IOException {
        byte[] h = new byte[9];
        in.readFully(h);
        int length = (h[0] & 0xff) << 16 | (h[1] & 0xff) << 8 | (h[2] & 0xff);
        if (length > maxLength || (h[3] & 0xff) > 9) {
            throw new AssertionError("misaligned at byte " + at + " of the frames: type " + (h[3] & 0xff) + " length " + length);
        }
        byte[] p = new byte[length];
        in.readFully(p);
        return new Frame(h[3] & 0xff, h[4] & 0xff, ((h[5] & 0x7f) << 24) | (h[6] & 0xff) << 16 | (h[7] & 0xff) << 8 | (h[8] & 0xff), p);
    }

    /** Reads until a frame of {@code type} (returned) or the end of the connection (null). */
    Frame until(int type) throws IOException {
        try {
            while (true) {
                Frame f = read();
                if (Boolean.getBoolean("h2wire.debug")) {
                    System.err.println("frame " + f.type() + " flags " + f.flags() + " stream " + f.stream() + " len " + f.payload().length);
                }
                if (f.type() == type) {
                    return f;
                }
            }
        } catch (EOFException | java.net.SocketException e) {
            return null;
        }
    }

    /** Reads frames until GOAWAY (its error code returned) or the end (-1); false timeouts fail. */
    int goAwayCode() throws IOException {
        Frame f = until(7);
        return f == null ? -1 : f.int32(4);
    }

    /** Whether the server closed the connection (EOF or reset) with nothing but frames before it. */
    boolean closedByServer() throws IOException {
        try {
            while (true) {
                read();
            }
        } catch (EOFException | java.net.SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
