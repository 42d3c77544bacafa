package dev.peregrine.compress.engine;

import dev.peregrine.compress.BodyDecodingException;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Decodes gzip request bodies (RFC 1952: header, deflate data, CRC-32 and length checked, several
 * members allowed) with a cap on the decoded size. Output grows only as the inflater produces it, in
 * pieces of at most {@value #PIECE} bytes, so a gzip bomb (a few KiB that inflate to GiBs) is refused
 * once it passes the cap, having cost at most the cap plus one piece: never its whole output.
 * <pre>
 *   coded bytes --GZIPInputStream (512-byte reads)--&gt; pieces --counted--&gt; cap passed: 413
 *                  bad header, bad CRC/length, truncated:  400
 * </pre>
 * Bytes after the last member that do not start another member are ignored, as
 * {@link GZIPInputStream} does.
 *
 * <p>Thread: any (static; each stream belongs to its reader).
 */
public final class GzipBodyDecoder {
    static final int PIECE = 16 * 1024;

    private GzipBodyDecoder() {
    }

    /**
     * Decodes the remaining bytes of {@code coded} (not moved) into a heap buffer of the decoded bytes.
     *
     * @throws BodyDecodingException 413 past {@code maxDecoded} bytes, 400 for a corrupt or truncated stream
     */
    public static ByteBuffer decode(ByteBuffer coded, long maxDecoded) throws BodyDecodingException {
        ByteBuffer src = coded.duplicate();
        InputStream in = new InputStream() {
            @Override
            public int read() {
                return src.hasRemaining() ? src.get() & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (!src.hasRemaining()) {
                    return -1;
                }
                int n = Math.min(len, src.remaining());
                src.get(b, off, n);
                return n;
            }
        };
        byte[] out = new byte[(int) Math.min(maxDecoded + 1, Math.max(1024L, Math.min(4L * src.remaining(), 1 << 20)))];
        int n = 0;
        try (InputStream z = stream(in, maxDecoded)) {
            while (true) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, (int) Math.min(maxDecoded + 1, Math.max(out.length * 2L, PIECE)));
                }
                int r = z.read(out, n, Math.min(out.length - n, PIECE));
                if (r < 0) {
                    break;
                }
                n += r;
            }
        } catch (BodyDecodingException e) {
            throw e;
        } catch (IOException e) {
            throw corrupt(e);
        }
        return ByteBuffer.wrap(out, 0, n);
    }

    /**
     * A stream of the decoded bytes of {@code coded}, read as the caller reads. Reads throw
     * {@link BodyDecodingException}: 413 once more than {@code maxDecoded} bytes came out, 400 for a
     * corrupt or truncated stream.
     */
    public static InputStream stream(InputStream coded, long maxDecoded) {
        return new Capped(coded, maxDecoded);
    }

    private static BodyDecodingException corrupt(IOException e) {
        return new BodyDecodingException(400, "corrupt gzip request body: " + e.getMessage(), e);
    }

    /** GZIPInputStream opened at the first read (its constructor reads the header), counted against the cap. */
    private static final class Capped extends InputStream {
        private final InputStream coded;
        private final long max;
        private GZIPInputStream gzip;
        private long total;

        Capped(InputStream coded, long max) {
            this.coded = coded;
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                if (gzip == null) {
                    gzip = new GZIPInputStream(coded, 512);
                }
                n = gzip.read(b, off, Math.min(len, PIECE));
            } catch (ZipException | EOFException e) {
                throw corrupt(e);
            }
            if (n > 0) {
                total += n;
                if (total > max) {
                    throw new BodyDecodingException(413, "gzip request body decodes to more than " + max + " bytes", null);
                }
            }
            return n;
        }

        @Override
        public void close() throws IOException {
            if (gzip != null) {
                gzip.close();
            } else {
                coded.close();
            }
        }
    }
}
