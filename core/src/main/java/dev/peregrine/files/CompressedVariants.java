package dev.peregrine.files;

import dev.peregrine.Compression;
import dev.peregrine.compress.Coding;
import dev.peregrine.compress.engine.Encoder;
import dev.peregrine.compress.engine.Encoders;
import dev.peregrine.http1.AcceptEncoding;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Compressed copies of the text files a {@link StaticFiles} serves, made once per file version and
 * coding and kept with the file's {@link OpenFileCache} entry, as fasthttp's {@code FS.Compress} and
 * nginx's {@code gzip on} (with its cache) do: a client that accepts gzip gets a 26 KB stylesheet
 * compressed, and the next such client gets the same bytes without compressing again. Identity answers
 * (no coding accepted, ranges, types not compressible) keep {@code sendfile}.
 * <pre>
 *   slot per (entry, coding):  null --first request--&gt; PENDING --compressed--&gt; byte[]  (served)
 *                                                              \--not smaller, or over the budget--&gt; SKIPPED
 *   size &lt; minSize or &gt; FILE_MAX, type not compressible: identity, no slot used
 *   size &lt;= INLINE_MAX: compressed by the request that found the slot empty, on its loop (about a
 *       millisecond at most), so even the first client gets it compressed
 *   larger: compressed on one background thread; identity is sent until the bytes are ready
 * </pre>
 * A changed file is a new cache entry (the old one is dropped with its copies), so a copy always belongs
 * to the version whose validators it carries: the identity's ETag with {@code -coding} appended (RFC 9110
 * §8.8.3: a strong validator names one representation). Copies count against {@link #BUDGET} bytes per
 * directory, released when their entry is dropped; past it, files are served uncompressed.
 *
 * <p>Thread: any (slots are set under the cache's lock; the background thread is made at first use and
 * ends after a minute idle).
 */
final class CompressedVariants implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CompressedVariants.class.getName());

    /** Files up to this size are compressed by the request that first asks, on its loop. */
    static final int INLINE_MAX = 64 * 1024;
    /** Larger files are served uncompressed (their copy would be read whole into memory). */
    static final long FILE_MAX = 8L << 20;
    /** Compressed bytes held per directory at most. */
    static final long BUDGET = 64L << 20;

    /** A slot whose copy is being made. */
    static final Object PENDING = new Object();
    /** A slot whose copy was not worth keeping (not smaller than the file, or over the budget). */
    static final Object SKIPPED = new Object();

    private final Compression settings;
    private final Coding[] offered;
    private final OpenFileCache cache;
    private final ThreadPoolExecutor background;

    CompressedVariants(Compression settings, OpenFileCache cache) {
        this.settings = settings;
        this.offered = settings.codings().toArray(new Coding[0]);
        this.cache = cache;
        this.background = new ThreadPoolExecutor(0, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "peregrine-static-compress");
            t.setDaemon(true);
            return t;
        });
    }

    /** Whether a file of this size and media type is compressed at all. */
    boolean eligible(long size, String mediaType) {
        return size >= settings.minSize() && size <= FILE_MAX && settings.compressible(mediaType);
    }

    /**
     * The coding the client prefers among those offered (RFC 9110 §12.5.3, ties to the server's order),
     * or null for identity.
     */
    Coding choose(CharSequence acceptEncoding) {
        return acceptEncoding == null ? null : AcceptEncoding.choose(acceptEncoding, offered);
    }

    /**
     * {@code f}'s copy in {@code coding}: the bytes when ready, else null (send identity). Makes the copy
     * now when the file is small, else starts making it in the background.
     */
    byte[] variant(OpenFileCache.OpenFile f, Coding coding) {
        Object slot = f.variant(coding);
        if (slot instanceof byte[]) {
            return (byte[]) slot;
        }
        if (slot != null || !cache.claimVariant(f, coding)) {
            return null; // pending or skipped, or claimed by another loop a moment ago
        }
        if (f.size <= INLINE_MAX) {
            return make(f, coding);
        }
        try {
            background.execute(() -> make(f, coding));
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            cache.holdVariant(f, coding, null); // the directory was closed meanwhile
        }
        return null;
    }

    /** Reads and compresses {@code f}, stores the result in its slot and returns it (null: not kept). */
    private byte[] make(OpenFileCache.OpenFile f, Coding coding) {
        byte[] compressed = null;
        try {
            byte[] plain = f.bytes != null ? f.bytes : OpenFileCache.OpenFile.readWhole(f.channel, (int) f.size);
            compressed = plain == null ? null : compress(plain, coding);
            if (compressed != null && compressed.length >= plain.length) {
                compressed = null; // already compressed content (a minified bundle of data URIs...): not worth it
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "not compressing " + f.path, e);
        }
        return cache.holdVariant(f, coding, compressed) ? compressed : null;
    }

    private byte[] compress(byte[] plain, Coding coding) {
        // One encoder per copy: copies are made once per file version, so pooling them would save little
        // and would need a lock between loops and the background thread.
        Encoders encoders = new Encoders(settings.level(), settings.brotliQuality(), 22, settings.zstdLevel());
        try {
            Encoder e = encoders.whole(coding);
            e.begin();
            e.write(plain, 0, plain.length);
            e.finish();
            return Arrays.copyOf(e.out(), e.outLength());
        } finally {
            encoders.close();
        }
    }

    /** Stops the background thread; copies being made are dropped. */
    @Override
    public void close() {
        background.shutdownNow();
    }
}
