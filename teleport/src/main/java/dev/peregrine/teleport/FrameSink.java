package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;

import java.nio.ByteBuffer;

/**
 * Where one HTTP/1.1 message is encoded before it becomes a frame's payload: the encoders write
 * through {@link OutputSink}, and a frame's length precedes its payload, so the message is gathered
 * here whole, then {@link #emit}ted behind its header into the connection's batch. One per loop
 * (direct, grown by doubling up to the peer's largest frame, then kept); a message past that bound
 * sets {@link #overflowed()} and is discarded as it is written.
 *
 * <p>Thread: the owning loop.
 */
final class FrameSink implements OutputSink {
    private ByteBuffer buf = ByteBuffer.allocateDirect(16 * 1024);
    private int cap;
    private boolean overflowed;

    /** Starts a message of at most {@code maxPayload} bytes. */
    void begin(int maxPayload) {
        buf.clear();
        cap = maxPayload;
        overflowed = false;
    }

    @Override
    public ByteBuffer out() {
        return buf;
    }

    /** Full: grows (keeping what is there) while under the cap; past it, drops the message. */
    @Override
    public void drain() {
        if (overflowed || buf.capacity() >= cap) {
            overflowed = true;
            buf.clear();
            return;
        }
        ByteBuffer bigger = ByteBuffer.allocateDirect((int) Math.min(cap, buf.capacity() * 2L));
        buf.flip();
        bigger.put(buf);
        buf = bigger;
    }

    /** Appends {@code [from, from + length)} of {@code src}, growing as {@link #drain} does. */
    void take(ByteBuffer src, int from, int length) {
        while (length > 0) {
            if (!buf.hasRemaining()) {
                drain();
            }
            int n = Math.min(buf.remaining(), length);
            buf.put(buf.position(), src, from, n);
            buf.position(buf.position() + n);
            from += n;
            length -= n;
        }
    }

    /** Whether the message was larger than the cap (what was gathered is meaningless then). */
    boolean overflowed() {
        return overflowed || buf.position() > cap;
    }

    /** Bytes gathered. */
    int length() {
        return buf.position();
    }

    /** Appends a frame of {@code type} and {@code id} carrying the gathered message to {@code to}. */
    void emit(OutputSink to, int id, byte type) {
        ByteBuffer out = to.out();
        if (out.remaining() < Frame.HEADER) {
            to.drain();
            out = to.out();
        }
        Frame.writeHeader(out, buf.position(), id, type);
        copy(buf, buf.position(), to);
    }

    /** Appends a frame of {@code type} and {@code id} carrying {@code [0, length)} of {@code payload} to {@code to}. */
    static void emit(OutputSink to, ByteBuffer payload, int length, int id, byte type) {
        ByteBuffer out = to.out();
        if (out.remaining() < Frame.HEADER) {
            to.drain();
            out = to.out();
        }
        Frame.writeHeader(out, length, id, type);
        copy(payload, length, to);
    }

    /** Appends {@code [0, length)} of {@code src} to {@code to}, draining it whenever full. */
    static void copy(ByteBuffer src, int length, OutputSink to) {
        int from = 0;
        while (from < length) {
            ByteBuffer out = to.out();
            if (!out.hasRemaining()) {
                to.drain();
                out = to.out();
            }
            int n = Math.min(out.remaining(), length - from);
            out.put(out.position(), src, from, n);
            out.position(out.position() + n);
            from += n;
        }
    }
}
