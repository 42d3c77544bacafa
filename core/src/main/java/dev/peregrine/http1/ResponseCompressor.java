package dev.peregrine.http1;

import dev.peregrine.Compression;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * Compresses response bodies in memory for one loop (see {@link Compression} for when): one
 * {@link Deflater} per coding and one output buffer, reset and reused for every response, so a
 * compressed response allocates nothing once the buffer has grown to its size. The compressed bytes
 * replace the body until the encoder has copied them, which happens before the next response.
 * <pre>
 *   gzip    (RFC 1952): 10-byte header | raw deflate | CRC-32 | length mod 2^32 (little-endian)
 *   deflate (RFC 9110 §8.4.1.2, the zlib format of RFC 1950): 2-byte header | deflate | Adler-32
 * </pre>
 * Thread: the owning loop only.
 */
public final class ResponseCompressor {
    private static final byte[] GZIP_HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final Compression settings;
    private final Deflater raw;
    private final Deflater zlib;
    private final CRC32 crc = new CRC32();
    private byte[] out = new byte[8192];

    public ResponseCompressor(Compression settings) {
        this.settings = settings;
        this.raw = new Deflater(settings.level(), true);
        this.zlib = new Deflater(settings.level(), false);
    }

    /** Compresses {@code res}'s body if {@code req} accepts a coding and the response qualifies. */
    public void apply(RequestView req, ResponseView res, boolean head) {
        int status = res.statusCode();
        if (status < 200 || status == 204 || status == 206 || status == 304 || !settings.compressible(res.contentType)) {
            return;
        }
        res.header("Vary", "Accept-Encoding");
        if (head || res.special() != 0 || hasHeader(res, "Content-Encoding")) {
            return;
        }
        String coding = AcceptEncoding.choose(req.headerView("Accept-Encoding"));
        if (coding == null) {
            return;
        }
        byte[] array;
        int off;
        int len;
        if (res.bodyKind == ResponseView.BODY_BYTES) {
            array = res.bodyBytes;
            off = 0;
            len = array.length;
        } else if (res.bodyKind == ResponseView.BODY_BUFFER && res.bodyBuffer.hasArray()) {
            ByteBuffer b = res.bodyBuffer;
            array = b.array();
            off = b.arrayOffset() + b.position();
            len = b.remaining();
        } else if (res.bodyKind == ResponseView.BODY_CHARS) {
            array = res.bodyChars.toString().getBytes(StandardCharsets.UTF_8);
            off = 0;
            len = array.length;
        } else {
            return; // a direct buffer: sent as it is
        }
        if (len < settings.minSize()) {
            return;
        }
        int n = coding.equals("gzip") ? gzip(array, off, len) : deflate(zlib, array, off, len, 0);
        res.header("Content-Encoding", coding);
        res.body(ByteBuffer.wrap(out, 0, n));
    }

    private int gzip(byte[] in, int off, int len) {
        System.arraycopy(GZIP_HEADER, 0, out, 0, GZIP_HEADER.length);
        int n = deflate(raw, in, off, len, GZIP_HEADER.length);
        crc.reset();
        crc.update(in, off, len);
        ensure(n + 8);
        putIntLE(n, (int) crc.getValue());
        putIntLE(n + 4, len);
        return n + 8;
    }

    /** Deflates {@code in} into {@link #out} from {@code at}; returns the end. */
    private int deflate(Deflater d, byte[] in, int off, int len, int at) {
        d.reset();
        d.setInput(in, off, len);
        d.finish();
        int n = at;
        while (!d.finished()) {
            ensure(n + 1024);
            n += d.deflate(out, n, out.length - n);
        }
        return n;
    }

    private void ensure(int size) {
        if (out.length < size) {
            out = java.util.Arrays.copyOf(out, Math.max(size, out.length * 2));
        }
    }

    private void putIntLE(int at, int v) {
        out[at] = (byte) v;
        out[at + 1] = (byte) (v >>> 8);
        out[at + 2] = (byte) (v >>> 16);
        out[at + 3] = (byte) (v >>> 24);
    }

    private static boolean hasHeader(ResponseView res, String name) {
        for (int i = 0; i < res.headerCount; i++) {
            if (res.headerNames[i].equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}
