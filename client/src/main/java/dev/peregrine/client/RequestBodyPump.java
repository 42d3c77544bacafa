package dev.peregrine.client;

import dev.peregrine.http1.ChunkFraming;
import dev.peregrine.BodyProducer;
import dev.peregrine.loop.Connection;

import java.nio.ByteBuffer;

/**
 * Sends a streamed request body: pulls its {@link BodyProducer} into the loop's write buffer only while
 * the connection has no unsent output, so a slow server slows the producer and memory stays at one
 * write buffer. A chunked body reserves room for each chunk's size line before the producer writes
 * and fills it in as eight hex digits afterwards (RFC 9112 §7.1: {@code chunk-size = 1*HEXDIG}):
 * <pre>
 *   write buffer: [... head or earlier chunks][0000abcd\r\n][producer's bytes][\r\n]   last: [0\r\n\r\n]
 *                                             ^sizeAt       ^dataStart
 * </pre>
 * A {@code Content-Length} body is written as it comes, and a producer that gives more or ends with
 * fewer bytes than announced fails the call.
 *
 * <p>Thread: the connection's loop.
 */
final class RequestBodyPump {
    private static final int SIZE_LINE = ChunkFraming.SIZE_LINE;
    private static final byte[] LAST_CHUNK = ChunkFraming.LAST_CHUNK;
    /** Smallest room worth offering the producer; below it the buffer is written out first. */
    private static final int MIN_ROOM = 512;

    private final BodyProducer producer;
    private final boolean chunked;
    private final long length;
    private long sent;

    RequestBodyPump(BodyProducer producer, long length) {
        this.producer = producer;
        this.chunked = length < 0;
        this.length = length;
    }

    /**
     * Pulls the producer while the socket takes its output, writing at most {@code maxBatches} full
     * write buffers. Returns true once the body is complete (the last bytes still in the batch), false
     * to be called again: when the output has drained if some is pending, else on a later turn.
     *
     * @throws IllegalStateException when the producer broke the length it announced, or failed (the cause)
     */
    boolean pump(Connection c, int maxBatches) {
        int batches = 0;
        while (c.isOpen()) {
            if (c.pendingOutput() > 0) {
                return false; // called again when the socket has taken it
            }
            ByteBuffer out = c.out();
            if (out.remaining() < MIN_ROOM + SIZE_LINE + LAST_CHUNK.length) {
                if (batches++ == maxBatches) {
                    return false;
                }
                c.flushBatch();
                continue;
            }
            int sizeAt = out.position();
            int dataStart = chunked ? sizeAt + SIZE_LINE : sizeAt;
            int limit = out.limit();
            int room = limit - dataStart - (chunked ? 2 + LAST_CHUNK.length : 0);
            if (!chunked) {
                room = (int) Math.min(room, length - sent + 1); // one byte more than announced is enough to catch it
            }
            out.position(dataStart).limit(dataStart + room);
            boolean more;
            try {
                more = producer.produce(out);
            } catch (Exception e) {
                out.limit(limit).position(sizeAt);
                throw new IllegalStateException("request body producer failed: " + e, e);
            }
            out.limit(limit);
            int n = out.position() - dataStart;
            sent += n;
            if (n == 0 && more) {
                throw new IllegalStateException("request body producer put nothing and did not end the body");
            }
            if (!chunked && (sent > length || !more && sent < length)) {
                out.position(sizeAt);
                throw new IllegalStateException("request body producer gave " + (sent > length ? "more than" : "only " + sent
                        + " of") + " the " + length + " bytes announced in Content-Length");
            }
            if (chunked) {
                ChunkFraming.frame(out, sizeAt, n);
            }
            if (!more) {
                if (chunked) {
                    out.put(LAST_CHUNK);
                }
                return true;
            }
            if (!chunked && sent == length) {
                // All announced bytes are here and the producer says more follow: it must end now.
                continue;
            }
        }
        return true; // closed meanwhile: nothing more to send
    }
}
