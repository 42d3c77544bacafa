package dev.peregrine.offloop;

import dev.peregrine.BodyProducer;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseCompressor;
import dev.peregrine.http1.ChunkFraming;
import dev.peregrine.loop.Connection;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Pulls a {@link BodyProducer} into the loop's write buffer while the connection has no unsent
 * output, one chunk per call (RFC 9112 §7.1). Room for the chunk's size line is reserved before the
 * producer writes; the size is then filled in as eight hex digits (leading zeros are allowed by the
 * grammar {@code chunk-size = 1*HEXDIG}):
 * <pre>
 *   write buffer: [... earlier bytes][0000abcd\r\n][producer's bytes][\r\n]
 *                                    ^sizeAt       ^dataStart
 * </pre>
 * Unframed (HTTP/1.0) bodies are written as they come. A compressed body ({@link CompressedChunks})
 * is produced into the loop's staging buffer instead ({@link ResponseCompressor#staging()}), and
 * each piece leaves compressed and flushed as a chunk of its own. Thread: the owning loop.
 */
final class ProducerBody implements BodySource {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private static final int SIZE_LINE = ChunkFraming.SIZE_LINE;
    private static final byte[] LAST_CHUNK = ChunkFraming.LAST_CHUNK;
    /** Smallest room worth offering the producer; below it the buffer is written out first. */
    private static final int MIN_ROOM = 512;

    private final BodyProducer producer;
    /** The handler's request view: expired while the producer runs (see {@link RequestView#expire}). */
    private final RequestView request;
    private final boolean framed;
    /** The coding the body goes through, or null when it is sent as produced. */
    private final CompressedChunks compressed;
    private final ResponseCompressor compressor;
    private boolean ended;

    ProducerBody(BodyProducer producer, RequestView request, boolean framed, boolean bodyAllowed,
                 ResponseCompressor compressor, dev.peregrine.compress.engine.Encoder encoder) {
        this.producer = producer;
        this.request = request;
        this.framed = framed;
        this.ended = !bodyAllowed;
        this.compressor = compressor;
        this.compressed = encoder == null ? null : new CompressedChunks(compressor, encoder, framed);
        if (ended && compressed != null) {
            compressed.release();
        }
    }

    @Override
    public boolean pump(Connection c) throws IOException {
        if (compressed != null) {
            return pumpCompressed(c);
        }
        while (!ended) {
            if (c.pendingOutput() > 0) {
                return false; // called again when the socket has taken it
            }
            ByteBuffer out = c.out();
            if (out.remaining() < MIN_ROOM + SIZE_LINE + LAST_CHUNK.length) {
                c.drain();
                continue;
            }
            int sizeAt = out.position();
            int dataStart = framed ? sizeAt + SIZE_LINE : sizeAt;
            int limit = out.limit();
            out.position(dataStart).limit(limit - (framed ? 2 + LAST_CHUNK.length : 0));
            boolean more;
            request.expire(true); // its handler returned: the view may describe another request by now
            try {
                more = producer.produce(out);
            } catch (Throwable t) {
                out.limit(limit).position(sizeAt);
                c.drain(); // what was produced before goes out; the close that follows truncates there
                throw failed(c, t);
            } finally {
                request.expire(false);
            }
            out.limit(limit);
            int n = out.position() - dataStart;
            if (n == 0 && more) {
                throw new IOException("body producer put nothing and did not end the body");
            }
            if (framed) {
                ChunkFraming.frame(out, sizeAt, n);
            }
            if (!more) {
                if (framed) {
                    out.put(LAST_CHUNK);
                }
                ended = true;
            }
        }
        return true;
    }

    /** {@link #pump} for a compressed body: produce into the staging buffer, compress, write a chunk. */
    private boolean pumpCompressed(Connection c) throws IOException {
        while (!ended) {
            if (c.pendingOutput() > 0) {
                return false;
            }
            ByteBuffer staging = compressor.staging();
            staging.clear();
            boolean more = produce(c, staging);
            int n = staging.position();
            if (n == 0 && more) {
                throw new IOException("body producer put nothing and did not end the body");
            }
            if (n > 0) {
                compressed.piece(c, staging.array(), staging.arrayOffset(), n);
            }
            if (!more) {
                compressed.end(c);
                if (framed) {
                    c.append(LAST_CHUNK, 0, LAST_CHUNK.length);
                }
                ended = true;
            }
        }
        return true;
    }

    private boolean produce(Connection c, ByteBuffer dst) throws IOException {
        request.expire(true);
        try {
            return producer.produce(dst);
        } catch (Throwable t) {
            c.drain();
            throw failed(c, t);
        } finally {
            request.expire(false);
        }
    }

    /**
     * The producer threw {@code t}: one WARNING for a client's connection, which its caller closes
     * mid-body; none for a {@link Connection#isDetached detached} one, whose owner answers otherwise
     * and reports the failure itself (teleport: a 500, the connection going on).
     */
    private static IOException failed(Connection c, Throwable t) {
        if (!c.isDetached()) {
            LOG.log(System.Logger.Level.WARNING, "body producer failed; connection closed mid-body", t);
        }
        return new IOException("body producer failed", t);
    }

    @Override
    public void abort() {
        ended = true;
        if (compressed != null) {
            compressed.release();
        }
    }
}
