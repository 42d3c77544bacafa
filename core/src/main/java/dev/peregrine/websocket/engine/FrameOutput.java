package dev.peregrine.websocket.engine;

import dev.peregrine.loop.Connection;
import dev.peregrine.websocket.codec.FrameWriter;

import java.nio.ByteBuffer;

/**
 * Writes server frames into a connection's batch (the loop's write buffer): the header
 * ({@link FrameWriter}), then the payload copied straight from where it is, the batch written out each
 * time the buffer fills ({@link Connection#drain}), so a frame may be larger than the buffer. What
 * the socket refuses waits in the connection's backlog (and pauses reading past
 * {@code maxPendingOutput}).
 *
 * <p>Thread: the connection's loop, while the batch is this connection's (its own turn or its own task).
 */
final class FrameOutput {
    private FrameOutput() {
    }

    static void frame(Connection c, int first, ByteBuffer src, int from, int length) {
        ByteBuffer out = c.out();
        if (out.remaining() < 10) {
            c.drain();
            out = c.out();
        }
        FrameWriter.putHeader(out, first, length);
        copy(c, src, from, length);
    }

    static void frame(Connection c, int first, byte[] src, int from, int length) {
        frame(c, first, ByteBuffer.wrap(src), from, length);
    }

    /** Bytes already framed ({@code PreparedMessage}). */
    static void raw(Connection c, byte[] frame) {
        copy(c, ByteBuffer.wrap(frame), 0, frame.length);
    }

    private static void copy(Connection c, ByteBuffer src, int from, int length) {
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
            from += n;
            length -= n;
        }
    }
}
