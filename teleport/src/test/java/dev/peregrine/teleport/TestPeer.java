package dev.peregrine.teleport;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** A blocking teleport client over a raw socket, for tests: exact bytes out, frames in (every read bounded by 30 s). */
final class TestPeer implements AutoCloseable {
    final Socket socket;
    DataInputStream in;
    private java.util.zip.Deflater deflater;
    final OutputStream out;

    /** A decoded frame. */
    record Got(int type, int id, byte[] payload) {
        String text() {
            return new String(payload, StandardCharsets.ISO_8859_1);
        }

        /** The response's body (after the blank line). */
        String body() {
            String t = text();
            return t.substring(t.indexOf("\r\n\r\n") + 4);
        }

        int status() {
            return Integer.parseInt(text().substring(9, 12));
        }
    }

    TestPeer(int port) throws IOException {
        this(new Socket("127.0.0.1", port));
    }

    TestPeer(Socket s) throws IOException {
        socket = s;
        socket.setSoTimeout(30_000);
        socket.setTcpNoDelay(true);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Connects and completes the handshake (none, 64 KiB frames, 10,000 in flight). */
    static TestPeer open(int port) throws IOException {
        TestPeer p = new TestPeer(port);
        p.write(hello(1, 0, 65536, 10_000));
        int status = p.in.readUnsignedByte();
        if (status != 0) {
            throw new IOException("refused: " + Handshake.reason(status));
        }
        byte[] h = new byte[Handshake.HELLO];
        p.in.readFully(h);
        if (Handshake.check(ByteBuffer.wrap(h), 0, h.length, TeleportCompression.NONE) != Handshake.ACCEPTED) {
            throw new IOException("bad server hello");
        }
        return p;
    }

    /** The server's side of an accepted handshake: reads the client's hello, answers 0x00 and a hello. */
    void acceptHello(int maxInFlight) throws IOException {
        byte[] h = new byte[Handshake.HELLO];
        in.readFully(h);
        write(new byte[] {0}, hello(1, 0, 65536, maxInFlight));
    }

    /** Connects with deflate both ways: reads from then on go through an inflater, {@link #writeDeflated} compresses. */
    static TestPeer openDeflate(int port) throws IOException {
        TestPeer p = new TestPeer(port);
        p.write(hello(1, 1, 65536, 10_000));
        int status = p.in.readUnsignedByte();
        if (status != 0) {
            throw new IOException("refused: " + Handshake.reason(status));
        }
        byte[] h = new byte[Handshake.HELLO];
        p.in.readFully(h);
        if (h[5] != 1) {
            throw new IOException("the server does not write deflate");
        }
        p.in = new DataInputStream(new java.util.zip.InflaterInputStream(p.socket.getInputStream(), new java.util.zip.Inflater(true)));
        p.deflater = new java.util.zip.Deflater(java.util.zip.Deflater.DEFAULT_COMPRESSION, true);
        return p;
    }

    /** {@code parts} as one batch of the deflate stream: compressed, sync-flushed. */
    byte[] deflated(byte[]... parts) {
        java.io.ByteArrayOutputStream plain = new java.io.ByteArrayOutputStream();
        for (byte[] b : parts) {
            plain.writeBytes(b);
        }
        deflater.setInput(plain.toByteArray());
        java.io.ByteArrayOutputStream z = new java.io.ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        do {
            n = deflater.deflate(buf, 0, buf.length, java.util.zip.Deflater.SYNC_FLUSH);
            z.write(buf, 0, n);
        } while (n == buf.length);
        return z.toByteArray();
    }

    static byte[] hello(int version, int compression, int maxFrame, int inFlight) {
        return ByteBuffer.allocate(Handshake.HELLO).put(new byte[] {'P', 'G', 'T', 'P'}).put((byte) version)
                .put((byte) compression).putInt(maxFrame).putInt(inFlight).array();
    }

    static byte[] frame(int id, int type, byte[] payload) {
        return ByteBuffer.allocate(Frame.HEADER + payload.length).putInt(payload.length).putInt(id).put((byte) type).put(payload).array();
    }

    static byte[] request(int id, String http) {
        return frame(id, Frame.REQUEST, http.getBytes(StandardCharsets.ISO_8859_1));
    }

    static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: t\r\n\r\n";
    }

    void write(byte[]... parts) throws IOException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            all.writeBytes(p);
        }
        out.write(all.toByteArray());
        out.flush();
    }

    Got read() throws IOException {
        int length = in.readInt();
        int id = in.readInt();
        int type = in.readUnsignedByte();
        byte[] payload = new byte[length];
        in.readFully(payload);
        return new Got(type, id, payload);
    }

    /** Whether the server closed: end of stream (or reset) with nothing more to read. */
    boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** The one byte the server answers before closing, then EOF. */
    int refusal() throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("closed without a reason byte");
        }
        return b;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
