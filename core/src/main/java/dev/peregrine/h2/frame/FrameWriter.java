package dev.peregrine.h2.frame;

import dev.peregrine.buffer.OutputSink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * Writes HTTP/2 frames (layout in {@link FrameParser}) into an {@link OutputSink}'s buffer, draining
 * it whenever the next piece would not fit, so a frame of any size can be written. Allocation-free.
 * Thread: the sink's.
 */
public final class FrameWriter {
    private FrameWriter() {
    }

    /** Makes room for {@code n} bytes in the sink's buffer ({@code n} at most its capacity). */
    private static ByteBuffer room(OutputSink sink, int n) {
        ByteBuffer out = sink.out();
        if (out.remaining() < n) {
            sink.drain();
            out = sink.out();
        }
        return out;
    }

    /** The 9-byte frame header. */
    public static void header(OutputSink sink, int length, int type, int flags, int streamId) {
        put(room(sink, HEADER_LENGTH), length, type, flags, streamId);
    }

    /**
     * The 9-byte header at {@code out}'s position (room for it checked by the caller), as one 8-byte
     * write and one byte: length (24 bits), type, flags, then the stream id's high three bytes; its low
     * byte last (§4.1, big-endian whatever the buffer's order).
     */
    private static void put(ByteBuffer out, int length, int type, int flags, int streamId) {
        int p = out.position();
        int id = streamId & 0x7fff_ffff;
        long w = (long) (length & 0xff_ffff) << 40 | (long) (type & 0xff) << 32 | (long) (flags & 0xff) << 24 | id >>> 8;
        out.putLong(p, out.order() == ByteOrder.BIG_ENDIAN ? w : Long.reverseBytes(w));
        out.put(p + 8, (byte) id);
        out.position(p + HEADER_LENGTH);
    }

    /** A frame of {@code [off, off+len)} of {@code src}: header and payload in one go when the buffer has room for both. */
    private static void frame(OutputSink sink, int type, int flags, int streamId, byte[] src, int off, int len) {
        ByteBuffer out = sink.out();
        if (out.remaining() >= HEADER_LENGTH + len) {
            put(out, len, type, flags, streamId);
            out.put(src, off, len);
            return;
        }
        header(sink, len, type, flags, streamId);
        sink.append(src, off, len);
    }

    /** Big-endian whatever the buffer's order (the loops' buffers are little-endian). */
    private static void putInt(ByteBuffer out, int v) {
        out.put((byte) (v >>> 24)).put((byte) (v >>> 16)).put((byte) (v >>> 8)).put((byte) v);
    }

    /** SETTINGS with {@code pairs} = id, value, id, value... (§6.5.1). */
    public static void settings(OutputSink sink, int... pairs) {
        header(sink, pairs.length / 2 * 6, SETTINGS, 0, 0);
        for (int i = 0; i < pairs.length; i += 2) {
            ByteBuffer out = room(sink, 6).put((byte) (pairs[i] >>> 8)).put((byte) pairs[i]);
            putInt(out, pairs[i + 1]);
        }
    }

    public static void settingsAck(OutputSink sink) {
        header(sink, 0, SETTINGS, FLAG_ACK, 0);
    }

    /** PING with its 8 opaque bytes as one long (§6.7). */
    public static void ping(OutputSink sink, boolean ack, long opaque) {
        header(sink, 8, PING, ack ? FLAG_ACK : 0, 0);
        ByteBuffer out = room(sink, 8);
        putInt(out, (int) (opaque >>> 32));
        putInt(out, (int) opaque);
    }

    /** GOAWAY without debug data (§6.8). */
    public static void goAway(OutputSink sink, int lastStreamId, int errorCode) {
        header(sink, 8, GOAWAY, 0, 0);
        ByteBuffer out = room(sink, 8);
        putInt(out, lastStreamId & 0x7fff_ffff);
        putInt(out, errorCode);
    }

    public static void rstStream(OutputSink sink, int streamId, int errorCode) {
        header(sink, 4, RST_STREAM, 0, streamId);
        putInt(room(sink, 4), errorCode);
    }

    public static void windowUpdate(OutputSink sink, int streamId, int increment) {
        header(sink, 4, WINDOW_UPDATE, 0, streamId);
        putInt(room(sink, 4), increment & 0x7fff_ffff);
    }

    /** One DATA frame carrying {@code [off, off+len)} of {@code src} ({@code len} within the peer's max frame size). */
    public static void data(OutputSink sink, int streamId, boolean endStream, byte[] src, int off, int len) {
        frame(sink, DATA, endStream ? FLAG_END_STREAM : 0, streamId, src, off, len);
    }

    /** One DATA frame carrying {@code [off, off+len)} of {@code src}. */
    public static void data(OutputSink sink, int streamId, boolean endStream, ByteBuffer src, int off, int len) {
        header(sink, len, DATA, endStream ? FLAG_END_STREAM : 0, streamId);
        append(sink, src, off, len);
    }

    /**
     * A field block {@code [0, len)} of {@code block} as HEADERS and as many CONTINUATION frames as
     * {@code maxFrameSize} needs (§6.2, §6.10), the last with END_HEADERS.
     */
    public static void headers(OutputSink sink, int streamId, boolean endStream, byte[] block, int len, int maxFrameSize) {
        int first = Math.min(len, maxFrameSize);
        int flags = (endStream ? FLAG_END_STREAM : 0) | (first == len ? FLAG_END_HEADERS : 0);
        frame(sink, HEADERS, flags, streamId, block, 0, first);
        int at = first;
        while (at < len) {
            int n = Math.min(len - at, maxFrameSize);
            frame(sink, CONTINUATION, at + n == len ? FLAG_END_HEADERS : 0, streamId, block, at, n);
            at += n;
        }
    }

    /** Appends {@code [off, off+len)} of {@code src} (absolute; its position is untouched). */
    public static void append(OutputSink sink, ByteBuffer src, int off, int len) {
        while (len > 0) {
            ByteBuffer out = sink.out();
            if (!out.hasRemaining()) {
                sink.drain();
                out = sink.out();
            }
            int n = Math.min(out.remaining(), len);
            out.put(out.position(), src, off, n);
            out.position(out.position() + n);
            off += n;
            len -= n;
        }
    }
}
