package dev.peregrine.websocket.engine;

import dev.peregrine.websocket.Payload;

import java.nio.ByteBuffer;

/**
 * The {@link Payload} a connection lends its callbacks: bytes {@code [start, start + length)} of a
 * buffer it does not own, re-pointed before each callback (one per connection, no allocation).
 *
 * <p>Thread: the connection's loop.
 */
final class PayloadView implements Payload {
    private ByteBuffer buf;
    private int start;
    private int length;
    private boolean text;

    PayloadView set(ByteBuffer buf, int start, int length, boolean text) {
        this.buf = buf;
        this.start = start;
        this.length = length;
        this.text = text;
        return this;
    }

    /** Forgets the buffer once the callback returned. */
    void clear() {
        buf = null;
        length = 0;
    }

    ByteBuffer buffer() {
        return buf;
    }

    int start() {
        return start;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public byte get(int index) {
        if (index < 0 || index >= length) {
            throw new IndexOutOfBoundsException(index + " of " + length);
        }
        return buf.get(start + index);
    }

    @Override
    public boolean isText() {
        return text;
    }

    @Override
    public void copyTo(ByteBuffer dst) {
        dst.put(dst.position(), buf, start, length);
        dst.position(dst.position() + length);
    }

    @Override
    public void copyTo(byte[] dst, int offset) {
        buf.get(start, dst, offset, length);
    }

    @Override
    public String toString() {
        return buf == null ? "Payload(released)" : (text ? text() : "Payload(" + length + " bytes)");
    }
}
