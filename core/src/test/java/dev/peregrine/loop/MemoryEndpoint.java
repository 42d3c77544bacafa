package dev.peregrine.loop;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A {@link SocketEndpoint} in memory, for driving an {@link Connection} without sockets: the test
 * queues input pieces (each read returns at most one), decides how many bytes each write takes (to
 * play a slow reader), and reads what the connection wrote.
 */
public final class MemoryEndpoint implements SocketEndpoint {
    private final ArrayDeque<byte[]> input = new ArrayDeque<>();
    private byte[] current;
    private int currentPos;
    private boolean eof;
    /** Bytes the next writes may take in total; reset by the test. */
    int writeBudget = Integer.MAX_VALUE;
    final ByteArrayOutputStream written = new ByteArrayOutputStream();
    boolean readInterest = true;
    boolean writeInterest;
    boolean outputShut;
    boolean closed;
    /** Bytes read, EOFs reported, bytes written and interest changes: what a readiness event must move. */
    long moved;

    /** Queues bytes for one read. */
    public void feed(byte[] piece) {
        if (piece.length > 0) {
            input.add(piece);
        }
    }

    /** The peer closes its side once the queued input is read. */
    public void endOfInput() {
        eof = true;
    }

    boolean hasInput() {
        return current != null || !input.isEmpty() || eof;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (closed) {
            throw new IOException("closed");
        }
        if (current == null) {
            current = input.poll();
            currentPos = 0;
            if (current == null) {
                if (eof) {
                    moved++;
                    return -1;
                }
                return 0;
            }
        }
        int n = Math.min(dst.remaining(), current.length - currentPos);
        dst.put(current, currentPos, n);
        currentPos += n;
        moved += n;
        if (currentPos == current.length) {
            current = null;
        }
        return n;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (closed || outputShut) {
            throw new IOException("closed");
        }
        int n = Math.min(src.remaining(), writeBudget);
        for (int i = 0; i < n; i++) {
            written.write(src.get());
        }
        writeBudget -= n;
        moved += n;
        return n;
    }

    @Override
    public void readInterest(boolean on) {
        if (readInterest != on) {
            moved++;
        }
        readInterest = on;
    }

    @Override
    public void writeInterest(boolean on) {
        if (writeInterest != on) {
            moved++;
        }
        writeInterest = on;
    }

    @Override
    public void shutdownOutput() {
        outputShut = true;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return InetSocketAddress.createUnresolved("memory", 1);
    }
}
