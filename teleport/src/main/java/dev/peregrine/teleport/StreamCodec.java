package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The compression of one direction of a teleport connection after the handshake (docs/teleport.md):
 * what the two codings, {@link DeflateStream} and {@link Lz4Stream}, share. A reading codec decodes
 * what arrives into its plain input, where the protocol takes whole frames; a writing codec gathers
 * the frames of a batch in its plain output and compresses them at once into the connection's batch.
 * <pre>
 *   reading:  compressed bytes --decode()--&gt; in (plain, holds a partial frame) --frames--&gt; consume()
 *   writing:  frames --plain--&gt; plain batch --flush(sink): one compress per batch--&gt; the connection's batch
 * </pre>
 * The plain input never grows past one partial frame plus one decoded piece (a deflate chunk, an LZ4
 * block of at most the reader's max frame): the caller takes whole frames after each {@link #decode}
 * ({@link Frame#check} refuses an oversized frame from its header), so what a peer can make this side
 * hold is bounded by its max frame.
 *
 * <p>Thread: the connection's loop.
 */
abstract class StreamCodec {
    private static final int START = 32 * 1024;
    private final boolean direct;
    private ByteBuffer in;
    private ByteBuffer plainOut;

    /**
     * @param reading whether the peer writes this coding; @param writing whether this side does;
     * @param direct whether the plain buffers are off-heap (a native codec reads and writes them in place)
     */
    StreamCodec(boolean reading, boolean writing, boolean direct) {
        this.direct = direct;
        this.in = reading ? allocate(START) : null;
        this.plainOut = writing ? allocate(START * 2) : null;
    }

    /** The codec reading {@code c} (what the peer writes), or null for none. */
    static StreamCodec reader(TeleportCompression c, int ownMaxFrame) {
        switch (c) {
            case DEFLATE: return new DeflateStream(true, false);
            case LZ4: return new Lz4Stream(true, false, ownMaxFrame);
            default: return null;
        }
    }

    /** The codec writing {@code c} toward a peer that takes frames of {@code peerMaxFrame}, or null for none. */
    static StreamCodec writer(TeleportCompression c, int peerMaxFrame) {
        switch (c) {
            case DEFLATE: return new DeflateStream(false, true);
            case LZ4: return new Lz4Stream(false, true, peerMaxFrame);
            default: return null;
        }
    }

    private ByteBuffer allocate(int capacity) {
        return (direct ? ByteBuffer.allocateDirect(capacity) : ByteBuffer.allocate(capacity)).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The coding's name, for messages. */
    abstract String name();

    // ---------------------------------------------------------------- reading

    /** Plain input so far: frames at {@code [0, position)} (write mode; the loops' byte order). */
    final ByteBuffer in() {
        return in;
    }

    /**
     * Decodes compressed {@code [from, to)} of {@code b} into {@link #in()} (at most {@code room} more
     * bytes where the coding can stop anywhere); returns how many compressed bytes it took (0: more are
     * needed, {@link #expectedInput()} says how many), or -1 for a corrupt stream.
     */
    abstract int decode(ByteBuffer b, int from, int to, int room);

    /** Whether the last {@link #decode} stopped at its room, not for want of input (call it again once frames were consumed). */
    boolean full() {
        return false;
    }

    /** Compressed bytes the piece that {@link #decode} waits for has in all (0: any will do). */
    int expectedInput() {
        return 0;
    }

    /** Room for {@code more} plain bytes after those held. */
    final void ensure(int more) {
        if (in.remaining() < more) {
            ByteBuffer bigger = allocate(Math.max(in.capacity() * 2, in.position() + more));
            in.flip();
            bigger.put(in);
            in = bigger;
        }
    }

    /** The frames up to {@code pos} of {@link #in()} were handled: the rest moves to the front. */
    final void consume(int pos) {
        in.flip().position(pos);
        in.compact();
    }

    // ---------------------------------------------------------------- writing

    /** Where this side's frames gather before {@link #flush}: an {@link OutputSink} that grows. */
    final OutputSink plain = new OutputSink() {
        @Override
        public ByteBuffer out() {
            return plainOut;
        }

        @Override
        public void drain() {
            ByteBuffer bigger = allocate(plainOut.capacity() * 2);
            plainOut.flip();
            bigger.put(plainOut);
            plainOut = bigger;
        }
    };

    /** The plain batch: frames at {@code [0, position)}. */
    final ByteBuffer plainOut() {
        return plainOut;
    }

    /** Whether frames wait in the plain batch. */
    final boolean pending() {
        return plainOut.position() > 0;
    }

    /** Compresses the plain batch into {@code to} (draining it as it fills) and empties it. */
    abstract void flush(OutputSink to);

    /** Frees what the coding holds outside the heap. Idempotent. */
    abstract void end();
}
