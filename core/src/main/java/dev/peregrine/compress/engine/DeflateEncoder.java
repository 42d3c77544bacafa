package dev.peregrine.compress.engine;

import dev.peregrine.compress.Coding;

import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * gzip and deflate on one {@link Deflater}, reset for every stream, so it allocates nothing once its
 * output array has grown:
 * <pre>
 *   gzip    (RFC 1952): 10-byte header | raw deflate | CRC-32 | length mod 2^32 (little-endian)
 *   deflate (RFC 9110 §8.4.1.2, the zlib format of RFC 1950): 2-byte header | deflate | Adler-32
 * </pre>
 * {@link #flush()} is zlib's {@code Z_SYNC_FLUSH}: the deflate stream so far ends on a byte boundary
 * with an empty stored block, so a client's inflater can hand out every byte written until now.
 *
 * <p>Thread: one at a time.
 */
public final class DeflateEncoder extends OutputArray {
    private static final byte[] GZIP_HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

    private final boolean gzip;
    private final Deflater deflater;
    private final CRC32 crc = new CRC32();
    private long total;

    /** A gzip ({@code gzip = true}) or zlib encoder at {@code level} (1 to 9). */
    public DeflateEncoder(boolean gzip, int level) {
        this.gzip = gzip;
        this.deflater = new Deflater(level, gzip);
    }

    @Override
    public Coding coding() {
        return gzip ? Coding.GZIP : Coding.DEFLATE;
    }

    @Override
    public void begin() {
        deflater.reset();
        length = 0;
        if (gzip) {
            crc.reset();
            total = 0;
            append(GZIP_HEADER, 0, GZIP_HEADER.length);
        }
    }

    @Override
    public void write(byte[] in, int off, int len) {
        if (len == 0) {
            return;
        }
        if (gzip) {
            crc.update(in, off, len);
            total += len;
        }
        deflater.setInput(in, off, len);
        while (!deflater.needsInput()) {
            ensureRoom(1024);
            length += deflater.deflate(out, length, out.length - length, Deflater.NO_FLUSH);
        }
    }

    @Override
    public void flush() {
        int room;
        int n;
        do { // a full output array may mean more is waiting (Deflater's contract for SYNC_FLUSH)
            ensureRoom(1024);
            room = out.length - length;
            n = deflater.deflate(out, length, room, Deflater.SYNC_FLUSH);
            length += n;
        } while (n == room);
    }

    @Override
    public void finish() {
        deflater.finish();
        while (!deflater.finished()) {
            ensureRoom(1024);
            length += deflater.deflate(out, length, out.length - length);
        }
        if (gzip) {
            ensureRoom(8);
            putIntLE((int) crc.getValue());
            putIntLE((int) total);
        }
    }

    private void putIntLE(int v) {
        out[length] = (byte) v;
        out[length + 1] = (byte) (v >>> 8);
        out[length + 2] = (byte) (v >>> 16);
        out[length + 3] = (byte) (v >>> 24);
        length += 4;
    }

    @Override
    public void close() {
        deflater.end();
    }
}
