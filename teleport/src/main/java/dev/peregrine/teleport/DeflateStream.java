package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;

import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Deflate over one direction of a teleport connection ({@link StreamCodec}, docs/teleport.md): one raw
 * DEFLATE stream (RFC 1951) per direction spanning the connection, each batch ended with a sync flush
 * ({@code 00 00 FF FF}) so the peer can decode all of it at once while the window still spans
 * batches. One {@link Inflater} or {@link Deflater} per direction, reused; {@link #end} frees it.
 * Inflation stops at the room the caller gives ({@link #full()}), so the inflated bytes per frame
 * are capped by the receiver's max frame.
 *
 * <p>Thread: the connection's loop.
 */
final class DeflateStream extends StreamCodec {
    private static final int CHUNK = 16 * 1024;
    private final Inflater inflater;
    private final Deflater deflater;
    private final byte[] chunk = new byte[CHUNK];
    private final byte[] src = new byte[CHUNK];
    /** The last {@link #decode} stopped at its room, not for want of input. */
    private boolean full;

    /** @param reading whether the peer writes deflate; @param writing whether this side does */
    DeflateStream(boolean reading, boolean writing) {
        super(reading, writing, false);
        this.inflater = reading ? new Inflater(true) : null;
        this.deflater = writing ? new Deflater(Deflater.DEFAULT_COMPRESSION, true) : null;
    }

    @Override
    String name() {
        return "deflate";
    }

    @Override
    int decode(ByteBuffer b, int from, int to, int room) {
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
                in().put(chunk, 0, got);
                room -= got;
            }
        } catch (DataFormatException e) {
            return -1;
        }
        int taken = n - inflater.getRemaining();
        inflater.setInput(src, 0, 0);
        return taken;
    }

    @Override
    boolean full() {
        return full;
    }

    /** Compresses the plain batch, ending it with a sync flush, into {@code to} (draining it as it fills). */
    @Override
    void flush(OutputSink to) {
        ByteBuffer plain = plainOut();
        if (plain.position() == 0) {
            return;
        }
        deflater.setInput(plain.array(), 0, plain.position());
        int n;
        do {
            n = deflater.deflate(chunk, 0, chunk.length, Deflater.SYNC_FLUSH);
            to.append(chunk, 0, n);
        } while (n == chunk.length || !deflater.needsInput());
        plain.clear();
    }

    @Override
    void end() {
        if (inflater != null) {
            inflater.end();
        }
        if (deflater != null) {
            deflater.end();
        }
    }
}
