package dev.peregrine.loop;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;

/**
 * A socket in memory, driven by its owner on the loop's thread: the one scripted endpoint of the
 * project, behind {@code TestClient} and the connection layer's tests. Input is queued in pieces (each
 * read returns at most one piece); what the connection writes is kept; how much a write may take can
 * be limited (a slow reader), and file transfers can be allowed (else the connection's copy through
 * buffers serves them). {@link #moved()} counts what a readiness event moved, so a driver can tell
 * when a turn made no progress. (Two loops joined with no socket are {@code transport.MemoryPipe}.)
 *
 * <p>Thread: the thread that drives the connection over it.
 */
public final class MemoryEndpoint implements SocketEndpoint {
    private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000);

    private final ArrayDeque<byte[]> input = new ArrayDeque<>();
    private byte[] current;
    private int currentPos;
    private boolean eof;
    private boolean closesAfterOurFin;
    private long writeBudget = Long.MAX_VALUE;
    private int refusals;
    private int maxPerWrite = Integer.MAX_VALUE;
    private boolean transfers;
    private int transferCalls;
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();
    private boolean readInterest = true;
    private boolean writeInterest;
    private boolean outputShut;
    private boolean closed;
    private long moved;

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

    /** The peer closes its side as soon as ours is shut (a client that closes after the server's FIN). */
    public void closesAfterOurFin() {
        closesAfterOurFin = true;
    }

    /** Whether a read would return bytes or the end of input. */
    public boolean hasInput() {
        return current != null || !input.isEmpty() || eof;
    }

    /** The next writes may take {@code bytes} in all (then each takes nothing). */
    public void writeBudget(long bytes) {
        writeBudget = bytes;
    }

    public long writeBudget() {
        return writeBudget;
    }

    /** The next {@code n} writes take nothing. */
    public void refuseWrites(int n) {
        refusals = n;
    }

    /** Each write takes at most {@code bytes}. */
    public void maxPerWrite(int bytes) {
        maxPerWrite = bytes;
    }

    /** File transfers are taken (in pieces of at most {@link #maxPerWrite}) instead of refused with -1. */
    public void allowTransfers() {
        transfers = true;
    }

    /** How many file transfers were taken. */
    public int transfers() {
        return transferCalls;
    }

    /** What the connection wrote, as ISO-8859-1 text. */
    public String writtenText() {
        return written.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** What the connection wrote. */
    public ByteArrayOutputStream written() {
        return written;
    }

    public boolean readInterest() {
        return readInterest;
    }

    public boolean writeInterest() {
        return writeInterest;
    }

    public boolean outputShut() {
        return outputShut;
    }

    public boolean closed() {
        return closed;
    }

    /** Bytes read, ends of input reported, bytes written and interest changes so far. */
    public long moved() {
        return moved;
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
                if (eof || (closesAfterOurFin && outputShut)) {
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
        if (refusals > 0) {
            refusals--;
            return 0;
        }
        int n = (int) Math.min(Math.min(src.remaining(), writeBudget), maxPerWrite);
        byte[] copy = new byte[n];
        src.get(copy);
        written.write(copy, 0, n);
        writeBudget -= n;
        moved += n;
        return n;
    }

    @Override
    public long transferFile(FileChannel file, long position, long count) throws IOException {
        if (!transfers) {
            return -1;
        }
        transferCalls++;
        ByteBuffer b = ByteBuffer.allocate((int) Math.min(count, maxPerWrite));
        int n = Math.max(file.read(b, position), 0);
        written.write(b.array(), 0, n);
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
        return PEER;
    }
}
