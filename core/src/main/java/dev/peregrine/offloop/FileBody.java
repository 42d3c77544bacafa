package dev.peregrine.offloop;

import dev.peregrine.loop.Connection;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Sends {@code length} bytes of a file after a head that announced them with {@code Content-Length}:
 * straight from the file to the socket when the endpoint can ({@link SocketEndpoint#transferFile},
 * {@code sendfile(2)} on NIO), otherwise read into the loop's write buffer and written from there.
 * Only while the connection has no unsent output, so the bytes keep their order. Closes the file when
 * done or aborted.
 *
 * <p>Thread: the owning loop.
 */
final class FileBody implements BodySource {
    private final FileChannel file;
    private long position;
    private long remaining;

    FileBody(FileChannel file, long offset, long length) {
        this.file = file;
        this.position = offset;
        this.remaining = length;
    }

    @Override
    public boolean pump(Connection c) throws IOException {
        while (remaining > 0) {
            if (c.pendingOutput() > 0) {
                return false; // the connection writes it first, then calls again when writable
            }
            long n = c.endpoint().transferFile(file, position, remaining);
            if (n < 0) {
                n = copyThroughBuffer(c);
            } else if (n == 0) {
                if (position >= file.size()) {
                    throw new EOFException("file shrank while being sent");
                }
                c.writeInterest(true);
                return false;
            } else {
                c.context().metrics().bytesOut += n;
            }
            position += n;
            remaining -= n;
        }
        abort();
        return true;
    }

    /** Reads the next piece into the (empty) write buffer and writes it; what the socket refuses is kept by the connection. */
    private long copyThroughBuffer(Connection c) throws IOException {
        ByteBuffer out = c.out();
        int room = (int) Math.min(out.remaining(), remaining);
        int limit = out.limit();
        out.limit(out.position() + room);
        int n;
        try {
            n = file.read(out, position);
        } finally {
            out.limit(limit);
        }
        if (n < 0) {
            throw new EOFException("file shrank while being sent");
        }
        c.drain();
        return n;
    }

    @Override
    public void abort() {
        try {
            file.close();
        } catch (IOException e) {
            // opened for reading only; nothing is lost
        }
    }
}
