package dev.peregrine.websocket.engine;

import dev.peregrine.buffer.BufferPool;
import dev.peregrine.websocket.codec.CloseCodes;
import dev.peregrine.websocket.codec.FrameHeader;
import dev.peregrine.websocket.codec.Utf8Validator;

import java.nio.ByteBuffer;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The message being received on one connection, across its fragments: payload bytes (already
 * unmasked) are appended to a buffer lent by the loop's pool, inflated first when the message is
 * compressed (RFC 7692 §7.2.2), and checked as UTF-8 as they come when it is text (fail fast, 1007).
 * The size is capped after inflation (1009), so a small compressed frame cannot grow past
 * {@code maxMessageSize} in memory: the buffer never exceeds the cap plus one byte. The {@link Inflater}
 * comes from the loop's {@link ZipPool} on the first compressed message and goes back at the close.
 * <pre>
 *   NONE --first frame (text/binary)--&gt; OPEN(opcode, compressed) --append*--&gt; finish --&gt; delivered --release--&gt; NONE
 * </pre>
 * The buffer goes back to the pool once the message is delivered or the connection closes: an idle
 * connection holds none.
 *
 * <p>Thread: the connection's loop.
 */
final class InboundMessage {
    /** RFC 7692 §7.2.2: the four bytes the sender removed from the end of each message. */
    private static final byte[] TAIL = {0, 0, (byte) 0xFF, (byte) 0xFF};

    private final BufferPool pool;
    private final int maxMessageSize;
    final Utf8Validator utf8 = new Utf8Validator();
    private ByteBuffer buf;
    private int length;
    /** The message's opcode (text or binary) while one is open, else 0. */
    private int opcode;
    private boolean compressed;
    private Inflater inflater;

    InboundMessage(BufferPool pool, int maxMessageSize) {
        this.pool = pool;
        this.maxMessageSize = maxMessageSize;
    }

    void start(int opcode, boolean compressed) {
        this.opcode = opcode;
        this.compressed = compressed;
        length = 0;
        utf8.reset();
    }

    /** The open message's opcode, or 0 when none is open. */
    int opcode() {
        return opcode;
    }

    boolean compressed() {
        return compressed;
    }

    boolean text() {
        return opcode == FrameHeader.OP_TEXT;
    }

    int length() {
        return length;
    }

    ByteBuffer buffer() {
        return buf;
    }

    /** Appends payload bytes {@code [from, from + n)}; returns 0, or the close code that ends the connection. */
    int append(ByteBuffer src, int from, int n) {
        if (compressed) {
            return inflate(src.slice(from, n));
        }
        if ((long) length + n > maxMessageSize) {
            return CloseCodes.TOO_BIG;
        }
        if (text() && !utf8.feed(src, from, from + n)) {
            return CloseCodes.INVALID_PAYLOAD;
        }
        ensure(length + n);
        buf.put(length, src, from, n);
        length += n;
        return 0;
    }

    /** The last frame arrived: returns 0 when the message is whole and valid, else the close code. */
    int finish() {
        if (compressed) {
            int code = inflate(ByteBuffer.wrap(TAIL));
            if (code != 0) {
                return code;
            }
            if (inflater.finished()) {
                inflater.reset(); // the sender ended its stream with a final block: a new one follows
            }
        }
        return text() && !utf8.complete() ? CloseCodes.INVALID_PAYLOAD : 0;
    }

    private int inflate(ByteBuffer input) {
        if (inflater == null) {
            inflater = ZipPool.local().inflater();
        }
        inflater.setInput(input);
        try {
            while (true) {
                if (buf == null || length == buf.capacity()) {
                    if (length > maxMessageSize) {
                        return CloseCodes.TOO_BIG;
                    }
                    ensure(Math.min(Math.max(length * 2, 4096), maxMessageSize + 1));
                }
                int before = length;
                buf.limit(buf.capacity()).position(length);
                int n = inflater.inflate(buf);
                buf.clear();
                length += n;
                if (n > 0 && text() && !utf8.feed(buf, before, length)) {
                    return CloseCodes.INVALID_PAYLOAD;
                }
                if (length > maxMessageSize) {
                    return CloseCodes.TOO_BIG;
                }
                if (n == 0 && length < buf.capacity()) {
                    return inflater.needsDictionary() ? CloseCodes.INVALID_PAYLOAD : 0; // input used up (or the stream ended)
                }
            }
        } catch (DataFormatException e) {
            return CloseCodes.INVALID_PAYLOAD;
        }
    }

    private void ensure(int capacity) {
        if (buf == null) {
            buf = pool.acquire(Math.max(capacity, 4096));
        } else if (capacity > buf.capacity()) {
            buf = pool.grow(buf, 0, length, Math.max(capacity, Math.min(buf.capacity() * 2, maxMessageSize + 1)));
        }
    }

    /** The message was delivered (or abandoned): the buffer goes back, no message is open. */
    void release() {
        opcode = 0;
        length = 0;
        if (buf != null) {
            pool.release(buf);
            buf = null;
        }
    }

    /** The connection closed: releases the buffer, and the inflater to the loop's {@link ZipPool}. */
    void end() {
        release();
        if (inflater != null) {
            ZipPool.local().release(inflater);
            inflater = null;
        }
    }
}
