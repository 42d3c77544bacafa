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

        /** Whether the response's body is chunked. */
        boolean chunked() {
            String t = text();
            return t.substring(0, t.indexOf("\r\n\r\n")).toLowerCase(java.util.Locale.ROOT).contains("transfer-encoding: chunked");
        }

        /** A chunked body's data (RFC 9112 §7.1), checked to end with the last chunk and the payload's end. */
        String dechunked() {
            String t = body();
            StringBuilder out = new StringBuilder();
            int at = 0;
            while (true) {
                int eol = t.indexOf("\r\n", at);
                int size = Integer.parseInt(t.substring(at, eol).trim(), 16);
                at = eol + 2;
                if (size == 0) {
                    if (!t.substring(at).equals("\r\n")) {
                        throw new IllegalStateException("bytes after the last chunk: " + t.substring(at));
                    }
                    return out.toString();
                }
                out.append(t, at, at + size);
                at += size + 2;
            }
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
        return open(port, 65536);
    }

    /** Connects and completes the handshake (none, frames up to {@code maxFrame}, 10,000 in flight). */
    static TestPeer open(int port, int maxFrame) throws IOException {
        TestPeer p = new TestPeer(port);
        p.write(hello(1, 0, maxFrame, 10_000));
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

    /**
     * Connects writing {@code compression} (0 none, 1 deflate, 2 lz4), so that the server writes it too:
     * reads from then on decode it, {@link #encoded} encodes a batch in it.
     */
    static TestPeer openWith(int port, int compression) throws IOException {
        if (compression == 1) {
            return openDeflate(port);
        }
        TestPeer p = new TestPeer(port);
        p.write(hello(1, compression, 65536, 10_000));
        int status = p.in.readUnsignedByte();
        if (status != 0) {
            throw new IOException("refused: " + Handshake.reason(status));
        }
        byte[] h = new byte[Handshake.HELLO];
        p.in.readFully(h);
        if (h[5] != compression) {
            throw new IOException("the server does not write compression " + compression);
        }
        if (compression == 2) {
            p.in = new DataInputStream(new Lz4Blocks(p.socket.getInputStream()));
            p.lz4 = true;
        }
        return p;
    }

    private boolean lz4;

    /** {@code parts} as one batch in this peer's compression (deflate sync-flushed, one lz4 block, or as they are). */
    byte[] encoded(byte[]... parts) {
        if (deflater != null) {
            return deflated(parts);
        }
        java.io.ByteArrayOutputStream plain = new java.io.ByteArrayOutputStream();
        for (byte[] b : parts) {
            plain.writeBytes(b);
        }
        return lz4 ? lz4Block(plain.toByteArray()) : plain.toByteArray();
    }

    /** {@code plain} as one LZ4 block behind its compressed and uncompressed lengths (docs/teleport.md). */
    static byte[] lz4Block(byte[] plain) {
        net.jpountz.lz4.LZ4Compressor c = net.jpountz.lz4.LZ4Factory.safeInstance().fastCompressor();
        byte[] z = c.compress(plain);
        return ByteBuffer.allocate(8 + z.length).putInt(z.length).putInt(plain.length).put(z).array();
    }

    /** Reads a stream of LZ4 blocks (each behind its two lengths) as the plain bytes they hold. */
    static final class Lz4Blocks extends java.io.InputStream {
        private final DataInputStream raw;
        private byte[] block = new byte[0];
        private int at;

        Lz4Blocks(java.io.InputStream raw) {
            this.raw = new DataInputStream(raw);
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (at == block.length) {
                int compressed;
                try {
                    compressed = raw.readInt();
                } catch (EOFException e) {
                    return -1;
                }
                int plain = raw.readInt();
                byte[] z = new byte[compressed];
                raw.readFully(z);
                block = net.jpountz.lz4.LZ4Factory.safeInstance().safeDecompressor().decompress(z, plain);
                at = 0;
            }
            int n = Math.min(len, block.length - at);
            System.arraycopy(block, at, b, off, n);
            at += n;
            return n;
        }
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
