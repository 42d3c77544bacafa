package dev.peregrine.offloop;

import dev.peregrine.exchange.FileParts;
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
 * <p>Several ranges ({@link FileParts}, for {@code multipart/byteranges}) go the same way, one after
 * the other, each after its head, which is appended to the connection's output from memory and
 * written before the range's first byte:
 * <pre>
 *   next = 0 ──► head[next] into the batch, drain ──► range[next] as one range ──► next++ ──┐
 *        ▲                                                                                   │
 *        └──────────────────────────── while next &lt; ranges ◄─────────────────────────────────┘
 *   then head[ranges] (the closing piece), drain, done
 * </pre>
 * So what the connection holds for a peer that does not read is at most a head (a few hundred bytes)
 * plus, without {@code sendfile}, one write buffer: never a range.
 *
 * <p>Thread: the owning loop.
 */
final class FileBody implements BodySource {
    private final FileChannel file;
    /** The ranges after the current one, or null for a body of one range. */
    private final FileParts parts;
    /** The next head of {@link #parts} to write. */
    private int next;
    private long position;
    private long remaining;

    FileBody(FileChannel file, long offset, long length) {
        this.file = file;
        this.parts = null;
        this.position = offset;
        this.remaining = length;
    }

    FileBody(FileChannel file, FileParts parts) {
        this.file = file;
        this.parts = parts;
    }

    @Override
    public boolean pump(Connection c) throws IOException {
        for (;;) {
            if (!sendRange(c)) {
                return false;
            }
            if (parts == null || next > parts.ranges()) {
                abort();
                return true;
            }
            if (c.pendingOutput() > 0) {
                return false;
            }
            byte[] head = parts.head(next);
            c.append(head, 0, head.length);
            if (next < parts.ranges()) {
                position = parts.offset(next);
                remaining = parts.length(next);
            }
            next++;
            c.drain(); // the head leaves before its range: sendfile writes the socket, not the batch
        }
    }

    /** Sends the current range as far as the socket takes it; true once all of it is handed over. */
    private boolean sendRange(Connection c) throws IOException {
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
