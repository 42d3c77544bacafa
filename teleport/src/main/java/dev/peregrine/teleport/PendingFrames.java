package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Frames of one connection waiting for its next write, outside the loop's shared write buffer (which
 * must be empty between loop tasks): a {@link ServerBatch} of uncompressed frames that outlives a loop
 * turn (off-loop answers, a batch delay). Off-heap; grows by doubling; kept for the connection's life.
 *
 * <p>Thread: the connection's loop.
 */
final class PendingFrames implements OutputSink {
    private ByteBuffer buf = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);

    @Override
    public ByteBuffer out() {
        return buf;
    }

    @Override
    public void drain() {
        ByteBuffer bigger = ByteBuffer.allocateDirect(buf.capacity() * 2).order(ByteOrder.LITTLE_ENDIAN);
        buf.flip();
        bigger.put(buf);
        buf = bigger;
    }

    boolean isEmpty() {
        return buf.position() == 0;
    }

    /** Appends what waits to {@code to} and forgets it. */
    void moveTo(OutputSink to) {
        FrameSink.copy(buf, buf.position(), to);
        buf.clear();
    }

    void clear() {
        buf.clear();
    }
}
