package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Deflate over one teleport connection, after the handshake, in the directions its hellos chose
 * (docs/teleport.md): one raw DEFLATE stream (RFC 1951) per direction spanning the connection, each
 * batch ended with a sync flush so the peer can decode all of it at once while the window still spans
 * batches. One {@link Deflater} and one {@link Inflater} per connection, reused; {@link #end} frees them.
 * <pre>
 *   reading:  compressed bytes --inflate()--&gt; in (plain, holds a partial frame) --frames--&gt; consume()
 *   writing:  frames --out()--&gt; plain batch --flush(sink): deflate SYNC_FLUSH--&gt; the connection's batch
 * </pre>
 * The plain input never grows past one frame plus one inflated chunk: the caller takes whole frames
 * after each {@link #inflate} ({@link Frame#check} refuses an oversized frame from its header), so the
 * inflated bytes per frame are capped by the receiver's max frame.
 *
 * <p>Thread: the connection's loop.
 */
final class DeflateStream {
    private static final int CHUNK = 16 * 1024;
    private final Inflater inflater;
    private final Deflater deflater;
    private ByteBuffer in;
    private ByteBuffer plainOut;
    private final byte[] chunk = new byte[CHUNK];
    private final byte[] src = new byte[CHUNK];
    /** The last {@link #inflate} stopped at its room, not for want of input. */
    private boolean full;

    /** @param reading whether the peer writes deflate; @param writing whether this side does */
    DeflateStream(boolean reading, boolean writing) {
        this.inflater = reading ? new Inflater(true) : null;
        this.deflater = writing ? new Deflater(Deflater.DEFAULT_COMPRESSION, true) : null;
        this.in = reading ? ByteBuffer.allocate(CHUNK * 2).order(ByteOrder.LITTLE_ENDIAN) : null;
        this.plainOut = writing ? ByteBuffer.allocate(CHUNK * 4).order(ByteOrder.LITTLE_ENDIAN) : null;
    }

    boolean reading() {
        return inflater != null;
    }

    boolean writing() {
        return deflater != null;
    }

    // ---------------------------------------------------------------- reading

    /** Plain input so far: frames at {@code [0, position)} (write mode; the loops' byte order). */
    ByteBuffer in() {
        return in;
    }

    /**
     * Feeds compressed {@code [from, to)} of {@code b} and inflates into {@link #in()} at most
     * {@code room} more bytes; returns how many compressed bytes it took (call again with the rest
     * once frames were consumed), or -1 for a corrupt stream.
     */
    int inflate(ByteBuffer b, int from, int to, int room) {
        int n = Math.min(to - from, src.length);
        b.get(from, src, 0, n);
        inflater.setInput(src, 0, n);
        full = false;
        try {
            while (true) {
                if (room <= 0) {
                    full = true;
                    break;
                }
                int got = inflater.inflate(chunk, 0, Math.min(chunk.length, room));
                if (got == 0) {
                    if (inflater.finished() || inflater.needsDictionary()) {
                        return -1; // a teleport stream never ends: a final block is corrupt input
                    }
                    break; // wants more input (zlib keeps no output back once its output space was not filled)
                }
                ensure(got);
                in.put(chunk, 0, got);
                room -= got;
            }
        } catch (DataFormatException e) {
            return -1;
        }
        int taken = n - inflater.getRemaining();
        inflater.setInput(src, 0, 0);
        return taken;
    }

    /** Whether the last {@link #inflate} stopped at its room (call it again once frames were consumed). */
    boolean full() {
        return full;
    }

    private void ensure(int more) {
        if (in.remaining() < more) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(in.capacity() * 2, in.position() + more)).order(ByteOrder.LITTLE_ENDIAN);
            in.flip();
            bigger.put(in);
            in = bigger;
        }
    }

    /** The frames up to {@code pos} of {@link #in()} were handled: the rest moves to the front. */
    void consume(int pos) {
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
            ByteBuffer bigger = ByteBuffer.allocate(plainOut.capacity() * 2).order(ByteOrder.LITTLE_ENDIAN);
            plainOut.flip();
            bigger.put(plainOut);
            plainOut = bigger;
        }
    };

    /** Whether frames wait in the plain batch. */
    boolean pending() {
        return plainOut.position() > 0;
    }

    /** Compresses the plain batch, ending it with a sync flush, into {@code to} (draining it as it fills). */
    void flush(OutputSink to) {
        if (plainOut.position() == 0) {
            return;
        }
        deflater.setInput(plainOut.array(), 0, plainOut.position());
        int n;
        do {
            n = deflater.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
            to.append(chunk, 0, n);
        } while (n == chunk.length || !deflater.needsInput());
        plainOut.clear();
    }

    /** Frees the native zlib state. */
    void end() {
        if (inflater != null) {
            inflater.end();
        }
        if (deflater != null) {
            deflater.end();
        }
    }
}
