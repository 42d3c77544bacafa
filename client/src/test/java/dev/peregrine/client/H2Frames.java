package dev.peregrine.client;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/2 frames by hand for the client's tests (RFC 9113 §4.1), independent of the production codec:
 * a server side that reads the client's frames off a socket and writes its own.
 */
final class H2Frames {
    static final int DATA = 0, HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8,
            CONTINUATION = 9;
    static final int END_STREAM = 1, ACK = 1, END_HEADERS = 4, PADDED = 8;
    /** HPACK: {@code :status 200}, indexed (RFC 7541 Appendix A, index 8). */
    static final byte[] STATUS_200 = {(byte) 0x88};

    private H2Frames() {
    }

    record Frame(int type, int flags, int stream, byte[] payload) {
        boolean has(int flag) {
            return (flags & flag) != 0;
        }
    }

    static byte[] frame(int type, int flags, int stream, byte[] payload) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(payload.length >>> 16);
        b.write(payload.length >>> 8);
        b.write(payload.length);
        b.write(type);
        b.write(flags);
        b.writeBytes(int32(stream));
        b.writeBytes(payload);
        return b.toByteArray();
    }

    static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A literal field without indexing, new name (RFC 7541 §6.2.2), short name and value. */
    static byte[] literal(String name, String value) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0);
        b.write(name.length());
        b.writeBytes(ascii(name));
        b.write(value.length());
        b.writeBytes(ascii(value));
        return b.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    /** The server's end of one connection. */
    static final class Peer {
        final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;

        Peer(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new DataInputStream(socket.getInputStream());
            this.out = socket.getOutputStream();
        }

        /** Reads the client's preface and answers with an empty SETTINGS. */
        void handshake() throws IOException {
            byte[] preface = in.readNBytes(24);
            if (!new String(preface, StandardCharsets.ISO_8859_1).equals("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")) {
                throw new IOException("not the HTTP/2 preface");
            }
            write(SETTINGS, 0, 0, new byte[0]);
        }

        /** The next frame, or null at the end of the stream. */
        Frame read() throws IOException {
            byte[] h = in.readNBytes(9);
            if (h.length < 9) {
                return null;
            }
            int length = (h[0] & 0xff) << 16 | (h[1] & 0xff) << 8 | (h[2] & 0xff);
            int stream = ((h[5] & 0x7f) << 24) | (h[6] & 0xff) << 16 | (h[7] & 0xff) << 8 | (h[8] & 0xff);
            return new Frame(h[3] & 0xff, h[4] & 0xff, stream, in.readNBytes(length));
        }

        /** Reads until {@code n} HEADERS frames came; returns their stream ids in order (null at the end). */
        int[] headers(int n) throws IOException {
            int[] ids = new int[n];
            int seen = 0;
            while (seen < n) {
                Frame f = read();
                if (f == null) {
                    return null;
                }
                if (f.type() == HEADERS) {
                    ids[seen++] = f.stream();
                }
            }
            return ids;
        }

        void write(int type, int flags, int stream, byte[] payload) throws IOException {
            out.write(frame(type, flags, stream, payload));
            out.flush();
        }

        /** {@code 200} with {@code body} as one DATA frame ending the stream. */
        void answer(int stream, String body) throws IOException {
            write(HEADERS, END_HEADERS, stream, STATUS_200);
            write(DATA, END_STREAM, stream, ascii(body));
        }
    }
}
