package dev.peregrine.websocket.engine;

import dev.peregrine.buffer.BufferPool;

import java.nio.ByteBuffer;
import java.util.zip.Deflater;

/**
 * Compresses one outgoing message for permessage-deflate (RFC 7692 §7.2.1): raw DEFLATE, flushed with
 * {@code SYNC_FLUSH} so the message ends on a byte boundary, then the four bytes {@code 00 00 FF FF}
 * that flush always ends with are removed. The output goes to a buffer lent by the loop's pool, which
 * the caller releases once the frame is written. With {@code server_no_context_takeover} the
 * compressor starts afresh for each message (§7.1.1.1). The compressor (level 1) comes from the loop's
 * {@link ZipPool} on the first compressed message.
 *
 * <p>Thread: the connection's loop.
 */
final class MessageDeflater {
    private final BufferPool pool;
    private final boolean noContextTakeover;
    private Deflater deflater;
    private ByteBuffer out;
    private int length;

    MessageDeflater(BufferPool pool, boolean noContextTakeover) {
        this.pool = pool;
        this.noContextTakeover = noContextTakeover;
    }

    /** Compresses {@code input}'s remaining bytes; the result is {@link #output()} {@code [0, length())}. */
    void compress(ByteBuffer input) {
        if (deflater == null) {
            deflater = ZipPool.local().deflater();
        }
        deflater.setInput(input);
        ByteBuffer o = pool.acquire(input.remaining() + 64);
        int n = 0;
        while (true) {
            o.limit(o.capacity()).position(n);
            n += deflater.deflate(o, Deflater.SYNC_FLUSH);
            if (n < o.capacity()) {
                break; // the flush is complete only when the output was not filled
            }
            o = pool.grow(o, 0, n, o.capacity() * 2);
        }
        o.clear();
        if (n >= 4 && o.getInt(n - 4) == 0xFFFF0000) { // 00 00 FF FF, read little-endian
            n -= 4;
        }
        if (noContextTakeover) {
            deflater.reset();
        }
        out = o;
        length = n;
    }

    ByteBuffer output() {
        return out;
    }

    int length() {
        return length;
    }

    /** The frame is written: the output buffer goes back. */
    void releaseOutput() {
        if (out != null) {
            pool.release(out);
            out = null;
        }
    }

    /** The connection closed: the compressor goes back to the loop's {@link ZipPool}. */
    void end() {
        releaseOutput();
        if (deflater != null) {
            ZipPool.local().release(deflater);
            deflater = null;
        }
    }
}
