package dev.peregrine.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * One response's handle on a file kept open by {@link OpenFileCache}: reads go to the shared channel
 * (positional reads and {@code transferTo} only, which do not move a shared position, so responses on
 * several loops may send the same file at once; {@code transferTo} still reaches {@code sendfile(2)}),
 * and closing it gives the file back to the cache instead of closing it. Read-only. An endpoint that
 * sends by descriptor (epoll's {@code sendfile}) sends from the shared channel ({@link #source()}).
 *
 * <p>Thread: the loop sending the response.
 */
final class CachedChannel extends FileChannel implements dev.peregrine.loop.SocketEndpoint.FileView {
    private final OpenFileCache cache;
    private final OpenFileCache.OpenFile file;
    private final FileChannel shared;
    private long position;

    CachedChannel(OpenFileCache cache, OpenFileCache.OpenFile file) {
        this.cache = cache;
        this.file = file;
        this.shared = file.channel;
    }

    @Override
    public FileChannel source() {
        return shared;
    }

    @Override
    protected void implCloseChannel() {
        cache.release(file);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int n = shared.read(dst, position);
        if (n > 0) {
            position += n;
        }
        return n;
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            int n = read(dsts[i]);
            if (n < 0) {
                return total == 0 ? -1 : total;
            }
            total += n;
            if (dsts[i].hasRemaining()) {
                break;
            }
        }
        return total;
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return shared.read(dst, position);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return shared.transferTo(position, count, target);
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    public FileChannel position(long newPosition) {
        position = newPosition;
        return this;
    }

    @Override
    public long size() throws IOException {
        return shared.size();
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return shared.map(mode, position, size);
    }

    @Override
    public int write(ByteBuffer src) {
        throw new java.nio.channels.NonWritableChannelException();
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) {
        throw new java.nio.channels.NonWritableChannelException();
    }

    @Override
    public int write(ByteBuffer src, long position) {
        throw new java.nio.channels.NonWritableChannelException();
    }

    @Override
    public FileChannel truncate(long size) {
        throw new java.nio.channels.NonWritableChannelException();
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) {
        throw new java.nio.channels.NonWritableChannelException();
    }

    @Override
    public void force(boolean metaData) {
        // read-only: nothing to force
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) {
        throw new UnsupportedOperationException("a cached static file is not locked");
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) {
        throw new UnsupportedOperationException("a cached static file is not locked");
    }
}
