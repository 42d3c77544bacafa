package dev.peregrine.files;

import dev.peregrine.buffer.HttpTokens;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A key of {@link OpenFileCache}: the request path below the mount point, percent-decoded, as bytes
 * (not yet read as UTF-8), with its hash. Two kinds share the class so that a {@code HashMap} compares
 * them with each other:
 * <ul>
 *   <li>a <em>probe</em>, one per thread ({@link #probe()}), re-filled for every request by
 *       {@link #decode} straight from the request's buffer: a cache hit builds no {@code String};</li>
 *   <li>a <em>stored</em> key, an exact-length {@link #copy()} of a probe, made only when a file is opened.</li>
 * </ul>
 * <pre>
 *   raw:    c s s / a % 2 0 b . c s s          (the request's bytes, the router's "*" parameter)
 *   bytes:  c s s / a ' ' b . c s s [0 . b r]  (decoded; a sibling's suffix after a NUL, which no
 *           ^                      ^           request path can hold: the router refuses %00)
 *           0                      length
 * </pre>
 * The decoding is the one {@code Request.pathParam} applies before reading UTF-8 (a {@code %} not
 * followed by two hex digits stays as it is), so equal keys name paths equal as {@code String}s and the
 * file cached under a key is the one {@link StaticFiles#resolve} finds for it.
 *
 * <p>Thread: a probe, its own thread; a stored key is immutable.
 */
final class PathKey {
    private static final ThreadLocal<PathKey> PROBES = ThreadLocal.withInitial(() -> new PathKey(new byte[64], 0));

    private byte[] bytes;
    private int length;
    private int hash;

    private PathKey(byte[] bytes, int length) {
        this.bytes = bytes;
        this.length = length;
        rehash();
    }

    /** This thread's probe, to be re-filled ({@link #decode}, {@link #set}); never stored. */
    static PathKey probe() {
        return PROBES.get();
    }

    /** A stored key for {@code path} (tests, and requests that are not the loop's own view). */
    static PathKey of(String path) {
        byte[] b = path.getBytes(StandardCharsets.UTF_8);
        return new PathKey(b, b.length);
    }

    /** Fills this probe with bytes {@code [start, end)} of {@code buf}, percent-decoded. */
    PathKey decode(ByteBuffer buf, int start, int end) {
        ensure(end - start);
        int n = 0;
        byte[] b = bytes;
        for (int i = start; i < end; i++) {
            byte c = buf.get(i);
            if (c == '%' && i + 2 < end) {
                int hi = HttpTokens.HEX[buf.get(i + 1) & 0xFF];
                int lo = HttpTokens.HEX[buf.get(i + 2) & 0xFF];
                if (hi >= 0 && lo >= 0) {
                    c = (byte) (hi << 4 | lo);
                    i += 2;
                }
            }
            b[n++] = c;
        }
        length = n;
        rehash();
        return this;
    }

    /** Fills this probe with {@code path} as UTF-8 (a request that is not the loop's view: allocates). */
    PathKey set(String path) {
        byte[] b = path.getBytes(StandardCharsets.UTF_8);
        ensure(b.length);
        System.arraycopy(b, 0, bytes, 0, b.length);
        length = b.length;
        rehash();
        return this;
    }

    /** Appends NUL and {@code suffix} (ASCII): the key of a precompressed sibling. Undo with {@link #truncate}. */
    PathKey appendSibling(String suffix) {
        ensure(length + 1 + suffix.length());
        bytes[length++] = 0;
        for (int i = 0; i < suffix.length(); i++) {
            bytes[length++] = (byte) suffix.charAt(i);
        }
        rehash();
        return this;
    }

    int length() {
        return length;
    }

    /** Back to the first {@code n} bytes (the key before {@link #appendSibling}). */
    PathKey truncate(int n) {
        length = n;
        rehash();
        return this;
    }

    /** An immutable key equal to this one, exactly as long as its bytes. */
    PathKey copy() {
        return new PathKey(Arrays.copyOf(bytes, length), length);
    }

    private void ensure(int capacity) {
        if (bytes.length < capacity) {
            bytes = Arrays.copyOf(bytes, Math.max(capacity, 2 * bytes.length));
        }
    }

    private void rehash() {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + bytes[i];
        }
        hash = h;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathKey k && k.hash == hash
                && Arrays.equals(bytes, 0, length, k.bytes, 0, k.length);
    }

    @Override
    public String toString() {
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
    }
}
