package dev.peregrine.websocket.engine;

import java.util.ArrayDeque;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * The permessage-deflate codecs of one event loop, kept between connections: a connection takes a
 * {@link Deflater} and an {@link Inflater} when its first compressed message needs one and gives them
 * back, reset, when it closes, so a server with many short connections does not make and free zlib's
 * native state (about 256 KiB a compressor) for each. At most {@link #KEEP} of each are kept; the rest
 * are ended at once. One per loop thread (a thread-local read only when a codec is taken or returned).
 *
 * <p>Thread: the loop thread that owns it.
 */
final class ZipPool {
    static final int KEEP = 16;
    /** The level of every compressor: most of the gain for text at a small fraction of the default level's CPU. */
    static final int LEVEL = 1;
    private static final ThreadLocal<ZipPool> LOCAL = ThreadLocal.withInitial(ZipPool::new);

    private final ArrayDeque<Deflater> deflaters = new ArrayDeque<>();
    private final ArrayDeque<Inflater> inflaters = new ArrayDeque<>();

    static ZipPool local() {
        return LOCAL.get();
    }

    /** A raw-DEFLATE compressor (no zlib header, RFC 7692 §7.2.1), fresh or reset. */
    Deflater deflater() {
        Deflater d = deflaters.pollFirst();
        return d != null ? d : new Deflater(LEVEL, true);
    }

    /** A raw-DEFLATE decompressor with the 32 KiB window, which reads any client_max_window_bits. */
    Inflater inflater() {
        Inflater i = inflaters.pollFirst();
        return i != null ? i : new Inflater(true);
    }

    void release(Deflater d) {
        if (deflaters.size() < KEEP) {
            d.reset();
            deflaters.addFirst(d);
        } else {
            d.end();
        }
    }

    void release(Inflater i) {
        if (inflaters.size() < KEEP) {
            i.reset();
            inflaters.addFirst(i);
        } else {
            i.end();
        }
    }
}
