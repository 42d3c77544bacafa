package dev.peregrine.websocket.engine;

import dev.peregrine.loop.Connection;
import dev.peregrine.websocket.codec.FrameWriter;
import dev.peregrine.websocket.codec.Masking;

import java.nio.ByteBuffer;

/**
 * Writes frames into a connection's batch (the loop's write buffer): the header
 * ({@link FrameWriter}), then the payload copied straight from where it is, the batch written out each
 * time the buffer fills ({@link Connection#drain}), so a frame may be larger than the buffer. What
 * the socket refuses waits in the connection's backlog (and pauses reading past
 * {@code maxPendingOutput}). A client's frame ({@code mask} set) carries a fresh random masking key
 * (RFC 6455 §5.3) and its payload is masked as it is copied into the batch, so the caller's bytes are
 * never changed.
 *
 * <p>Thread: the connection's loop, while the batch is this connection's (its own turn or its own task).
 */
final class FrameOutput {
    private FrameOutput() {
    }

    static void frame(Connection c, int first, ByteBuffer src, int from, int length, MaskSource mask) {
        ByteBuffer out = c.out();
        if (out.remaining() < 14) {
            c.drain();
            out = c.out();
        }
        int at = out.position();
        FrameWriter.putHeader(out, first, length);
        int key = 0;
        if (mask != null) {
            key = mask.nextKey();
            out.put(at + 1, (byte) (out.get(at + 1) | 0x80)); // the MASK bit (§5.2), then the key
            out.put((byte) (key >>> 24)).put((byte) (key >>> 16)).put((byte) (key >>> 8)).put((byte) key);
        }
        copy(c, src, from, length, key);
    }

    static void frame(Connection c, int first, byte[] src, int from, int length, MaskSource mask) {
        frame(c, first, ByteBuffer.wrap(src), from, length, mask);
    }

    /** Bytes already framed ({@code PreparedMessage}). */
    static void raw(Connection c, byte[] frame) {
        copy(c, ByteBuffer.wrap(frame), 0, frame.length, 0);
    }

    private static void copy(Connection c, ByteBuffer src, int from, int length, int key) {
        long done = 0;
        while (length > 0) {
            ByteBuffer out = c.out();
            if (!out.hasRemaining()) {
                c.drain();
                out = c.out();
            }
            int n = Math.min(out.remaining(), length);
            int at = out.position();
            out.put(at, src, from, n);
            out.position(at + n);
            Masking.unmask(out, at, at + n, key, done); // XOR: masking is unmasking (0: none)
            done += n;
            from += n;
            length -= n;
        }
    }
}
