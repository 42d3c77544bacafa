package dev.peregrine.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open files of one {@link StaticFiles}, least recently used first out, at most {@code capacity}
 * of them: the channel, and the size, modification time and identity (device and inode) it had when
 * opened; the bytes too for files up to {@link #IN_MEMORY_MAX}. A hit costs one {@code stat} of the path
 * (none while the entry is within its validity, {@code StaticOptions.cacheValid}) instead of the
 * resolution, {@code open} and {@code close} of a miss; a file whose size, time or identity changed is
 * dropped and opened again.
 * <pre>
 *   lookup(key) --hit--&gt; validated less than cacheValid ago? --yes--&gt; the entry
 *        |                     | no
 *        |                     v
 *        |               stat(path): same size, mtime, inode? --yes--&gt; the entry (validated now)
 *        |                                  no: drop
 *        +--miss--&gt; (caller resolves) open(key, path) --&gt; put; over capacity: drop the eldest
 *   lend(f): refs+1, a CachedChannel for one response (files above IN_MEMORY_MAX)
 *   drop(f): out of the map; closed now if refs == 0, else by the last release()
 *   close(): drops everything (the server stopped); the cache is empty but usable again
 * </pre>
 * Shared by every loop serving the directory: lookups read a {@code ConcurrentHashMap} without a lock and
 * stamp the entry's last use; opening, dropping and lending take this object's lock, held only for map
 * and counter updates, never across a system call. Least recently used means the oldest stamp, found by a
 * scan when a file opened past the bound.
 *
 * <p>Thread: any.
 */
final class OpenFileCache implements AutoCloseable {
    /** A cached open file; immutable but for {@link #refs} and {@link #dropped}, guarded by the cache. */
    static final class OpenFile {
        final Path path;
        final FileChannel channel;
        final long size;
        final long modifiedMillis;
        final Object fileKey;
        /** Stats {@link #path} for validation; made once (a view per lookup would be one more object). */
        final BasicFileAttributeView attributes;
        final String etag;
        final String lastModified;
        /**
         * The whole file when it is at most {@link #IN_MEMORY_MAX} bytes, read once at open, else null.
         * Valid as long as the entry is: a lookup that finds the file changed drops the entry.
         */
        final byte[] bytes;
        /** The media type, set by the handler at first use (a benign race: every writer stores the same value). */
        String mediaType;
        /**
         * The identity representation's validator and option fields, preformatted by the handler at first
         * use ({@code ResponseView.fields}; the same benign race).
         */
        byte[] fields;
        /** The same for a 304 ({@code StaticFiles.notModified}). */
        byte[] notModifiedFields;
        /**
         * When a stat last found the file unchanged ({@link System#nanoTime}). Written by any loop without
         * a lock: a stale read only makes one more stat.
         */
        long validatedNanos;
        /**
         * When a lookup last found it ({@link System#nanoTime}): the eviction order. Written by any loop
         * without a lock: a stale read may evict a file used a moment ago, never a wrong one.
         */
        long usedNanos;
        /**
         * Compressed copies by {@code Coding.ordinal()} ({@link CompressedVariants}): null, PENDING, SKIPPED
         * or the bytes. Copy on write: changed under the cache's lock and published whole through this
         * volatile field, read without a lock. Made at first use: a file never asked for compressed has none.
         */
        private volatile Object[] variants;
        /** Bytes of {@link #variants} counted against the budget; guarded by the cache. */
        private long variantBytes;
        private int refs;
        private boolean dropped;
        private boolean closed;

        OpenFile(Path path, FileChannel channel, BasicFileAttributes attrs) throws IOException {
            this.path = path;
            this.channel = channel;
            this.size = attrs.size();
            this.modifiedMillis = attrs.lastModifiedTime().toMillis();
            this.fileKey = attrs.fileKey();
            this.attributes = Files.getFileAttributeView(path, BasicFileAttributeView.class);
            this.etag = Validators.etag(size, modifiedMillis);
            this.lastModified = Validators.lastModified(modifiedMillis);
            this.bytes = size <= IN_MEMORY_MAX ? readWhole(channel, (int) size) : null;
        }

        /** The first {@code size} bytes of {@code ch}, or null when it is shorter now (changing: sent from the file). */
        static byte[] readWhole(FileChannel ch, int size) throws IOException {
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(size);
            while (b.hasRemaining()) {
                if (ch.read(b, b.position()) < 0) {
                    return null;
                }
            }
            return b.array();
        }

        /** The slot of {@code coding}: null, {@link CompressedVariants#PENDING}, {@code SKIPPED} or the bytes. */
        Object variant(dev.peregrine.compress.Coding coding) {
            Object[] v = variants;
            return v == null ? null : v[coding.ordinal()];
        }

        boolean sameAs(BasicFileAttributes a) {
            return a.isRegularFile() && a.size() == size && a.lastModifiedTime().toMillis() == modifiedMillis
                    && java.util.Objects.equals(a.fileKey(), fileKey);
        }
    }

    /**
     * Files up to this size are also kept in memory ({@link OpenFile#bytes}) and sent from there with
     * their head in one write: for a small file, the {@code fstat}, {@code sendfile} and the per-response
     * channel cost more than copying its bytes into the batch. At most {@code capacity} times this much.
     */
    static final int IN_MEMORY_MAX = 16 * 1024;

    private final int capacity;
    private final long validNanos;
    /** Compressed copies held by the entries, at most {@link CompressedVariants#BUDGET}. */
    private long variantBytes;
    /** Read without a lock by lookups; changed under this object's lock. */
    private final ConcurrentHashMap<PathKey, OpenFile> files;
    private int open;

    OpenFileCache(int capacity) {
        this(capacity, 0);
    }

    /** @param validMillis how long an entry is trusted without a stat (0: a stat on every lookup) */
    OpenFileCache(int capacity, long validMillis) {
        this.validNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(validMillis);
        this.capacity = capacity;
        this.files = new ConcurrentHashMap<>();
    }

    /**
     * The file cached under {@code key} (a probe will do: it is not kept) if it is still what was opened
     * (one stat, unless validated less than {@code validMillis} ago); else null. No allocation but the
     * JDK's for the stat: {@code readAttributes} makes its attribute object, the modification time and
     * the file key (about 150 to 200 bytes on JDK 17 and 25), the price of noticing a file replaced by
     * another of the same size and time; within the validity, nothing.
     */
    OpenFile lookup(PathKey key) {
        OpenFile f = files.get(key);
        if (f == null) {
            return null;
        }
        long now = System.nanoTime();
        f.usedNanos = now;
        if (validNanos != 0 && now - f.validatedNanos < validNanos) {
            return f; // trusted for a while without a stat (StaticOptions.cacheValid)
        }
        try {
            if (f.sameAs(f.attributes.readAttributes())) {
                f.validatedNanos = now;
                return f;
            }
        } catch (IOException gone) {
            // removed or unreadable: dropped, and the caller resolves again
        }
        drop(key, f);
        return null;
    }

    /**
     * Opens {@code path} (already resolved and checked by the caller) and caches it under a copy of
     * {@code key}. Null when it vanished meanwhile.
     */
    OpenFile open(PathKey key, Path path) throws IOException {
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.READ);
        } catch (NoSuchFileException gone) {
            return null;
        }
        OpenFile f;
        try {
            f = new OpenFile(path, ch, Files.readAttributes(path, BasicFileAttributes.class));
            f.validatedNanos = System.nanoTime();
            f.usedNanos = f.validatedNanos;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        List<OpenFile> toClose = new ArrayList<>(1);
        synchronized (this) {
            OpenFile old = files.put(key.copy(), f);
            open++;
            if (old != null) {
                dropLocked(old, toClose);
            }
            if (files.size() > capacity) {
                evictLocked(toClose);
            }
        }
        closeAll(toClose);
        return f;
    }

    /** A channel on {@code f} for one response, or null if {@code f} was closed meanwhile (then open it afresh). */
    synchronized FileChannel lend(OpenFile f) {
        if (f.closed) {
            return null;
        }
        f.refs++;
        return new CachedChannel(this, f);
    }

    /** A response is done with {@code f} (its channel closed). */
    void release(OpenFile f) {
        boolean close;
        synchronized (this) {
            f.refs--;
            close = f.dropped && f.refs == 0 && !f.closed;
            if (close) {
                f.closed = true;
                open--;
            }
        }
        if (close) {
            closeQuietly(f);
        }
    }

    /**
     * Claims {@code f}'s empty slot for {@code coding} (marks it PENDING) for the caller to fill with
     * {@link #holdVariant}; false if it is not empty or {@code f} was dropped.
     */
    synchronized boolean claimVariant(OpenFile f, dev.peregrine.compress.Coding coding) {
        if (f.dropped) {
            return false;
        }
        Object[] v = f.variants;
        if (v == null) {
            v = new Object[dev.peregrine.compress.Coding.values().length];
        } else if (v[coding.ordinal()] != null) {
            return false;
        } else {
            v = v.clone(); // published whole through the volatile field: readers see a complete array
        }
        v[coding.ordinal()] = CompressedVariants.PENDING;
        f.variants = v;
        return true;
    }

    /**
     * Fills the slot {@link #claimVariant} claimed: with {@code bytes} when they fit the budget and
     * {@code f} is still cached (true), else SKIPPED (false; null {@code bytes} too).
     */
    synchronized boolean holdVariant(OpenFile f, dev.peregrine.compress.Coding coding, byte[] bytes) {
        boolean keep = bytes != null && !f.dropped && variantBytes + bytes.length <= CompressedVariants.BUDGET;
        Object[] v = f.variants.clone();
        v[coding.ordinal()] = keep ? bytes : CompressedVariants.SKIPPED;
        f.variants = v;
        if (keep) {
            f.variantBytes += bytes.length;
            variantBytes += bytes.length;
        }
        return keep;
    }

    /** Compressed bytes held now (tests). */
    synchronized long variantBytes() {
        return variantBytes;
    }

    /** Files open now (cached, or dropped but still being sent). */
    synchronized int openCount() {
        return open;
    }

    private void drop(PathKey key, OpenFile f) {
        List<OpenFile> toClose = new ArrayList<>(1);
        synchronized (this) {
            files.remove(key, f);
            dropLocked(f, toClose);
        }
        closeAll(toClose);
    }

    /**
     * Drops the least recently used file. A scan of the map: O(capacity) per file opened past the bound,
     * which keeps hits free of a lock and of list updates (a hit only stamps {@link OpenFile#usedNanos}).
     */
    private void evictLocked(List<OpenFile> toClose) {
        PathKey eldestKey = null;
        OpenFile eldest = null;
        for (var e : files.entrySet()) {
            OpenFile f = e.getValue();
            if (eldest == null || f.usedNanos - eldest.usedNanos < 0) {
                eldestKey = e.getKey();
                eldest = f;
            }
        }
        if (eldest != null) {
            files.remove(eldestKey, eldest);
            dropLocked(eldest, toClose);
        }
    }

    private void dropLocked(OpenFile f, List<OpenFile> toClose) {
        if (f.dropped) {
            return;
        }
        f.dropped = true;
        variantBytes -= f.variantBytes; // the copies go with the entry (a response sending one keeps its array)
        f.variantBytes = 0;
        if (f.refs == 0) {
            f.closed = true;
            open--;
            toClose.add(f);
        }
    }

    /** Drops every file: those not being sent close now, the others when their responses end. */
    @Override
    public void close() {
        List<OpenFile> toClose = new ArrayList<>();
        synchronized (this) {
            for (OpenFile f : files.values()) {
                dropLocked(f, toClose);
            }
            files.clear();
        }
        closeAll(toClose);
    }

    private static void closeAll(List<OpenFile> files) {
        for (OpenFile f : files) {
            closeQuietly(f);
        }
    }

    private static void closeQuietly(OpenFile f) {
        try {
            f.channel.close();
        } catch (IOException e) {
            // read-only: nothing is lost
        }
    }
}
