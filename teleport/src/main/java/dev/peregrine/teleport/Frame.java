package dev.peregrine.teleport;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The teleport frame: a fixed nine-byte header, then the payload. Pure codec; depends on nothing.
 * <pre>
 *   0               4               8   9
 *   +---------------+---------------+---+--------------------------+
 *   | length  (u32) | id      (u32) |typ| payload (length bytes)   |
 *   +---------------+---------------+---+--------------------------+
 *   big-endian (network order); length counts the payload only, never the header
 *
 *   type  name      id                         payload
 *   1     REQUEST   the request's id, != 0     exactly one HTTP/1.1 request message
 *   2     RESPONSE  the id of its request      exactly one HTTP/1.1 response message
 *   3     CANCEL    the id of a request        empty: the client no longer wants the answer
 *   4     PING      any (echoed)               empty = ping; one byte 0x01 = the answer to a ping
 *   5     GOAWAY    highest request id taken   optional UTF-8 reason; no REQUEST after it
 * </pre>
 * A frame whose length exceeds the receiver's declared maximum ({@link Handshake}), of an unknown
 * type, or a CANCEL/PING/GOAWAY with a payload outside the table is a protocol error: the receiver
 * closes the connection.
 *
 * <p>Thread: any (static, stateless).
 */
public final class Frame {
    /** Bytes of the header. */
    public static final int HEADER = 9;
    public static final byte REQUEST = 1;
    public static final byte RESPONSE = 2;
    public static final byte CANCEL = 3;
    public static final byte PING = 4;
    public static final byte GOAWAY = 5;

    /** {@link #check}: the frame is not all there yet. */
    public static final int NEED_MORE = -1;
    /** {@link #check}: the length is above the receiver's maximum. */
    public static final int TOO_LARGE = -2;
    /** {@link #check}: the type is none of the five, or its payload does not fit the type. */
    public static final int BAD_TYPE = -3;

    /** The largest GOAWAY reason a receiver accepts. */
    public static final int MAX_GOAWAY_REASON = 1024;

    private Frame() {
    }

    /**
     * Checks the frame starting at {@code pos} of {@code b} (bytes up to {@code end} are there) against
     * {@code maxPayload}. The header is judged as soon as it is all there, so a bad length or type is
     * refused before its payload arrives.
     *
     * @return the index after the frame, {@link #NEED_MORE}, {@link #TOO_LARGE} or {@link #BAD_TYPE}
     */
    public static int check(ByteBuffer b, int pos, int end, int maxPayload) {
        if (end - pos < HEADER) {
            return NEED_MORE;
        }
        long length = length(b, pos);
        if (length > maxPayload) {
            return TOO_LARGE;
        }
        byte type = type(b, pos);
        switch (type) {
            case REQUEST:
            case RESPONSE:
                break;
            case CANCEL:
                if (length != 0) {
                    return BAD_TYPE;
                }
                break;
            case PING:
                if (length > 1) {
                    return BAD_TYPE;
                }
                break;
            case GOAWAY:
                if (length > MAX_GOAWAY_REASON) {
                    return BAD_TYPE;
                }
                break;
            default:
                return BAD_TYPE;
        }
        if (end - pos - HEADER < length) {
            return NEED_MORE;
        }
        return pos + HEADER + (int) length;
    }

    /** The payload length of the frame at {@code pos} (header there), unsigned. */
    public static long length(ByteBuffer b, int pos) {
        return getInt(b, pos) & 0xFFFF_FFFFL;
    }

    /** The id of the frame at {@code pos}, as the int of its four bytes (compare as unsigned). */
    public static int id(ByteBuffer b, int pos) {
        return getInt(b, pos + 4);
    }

    /**
     * The big-endian u32 at {@code at}, whatever {@code b}'s order (the loops' buffers are in native
     * order for their word-at-a-time scans).
     */
    public static int getInt(ByteBuffer b, int at) {
        int v = b.getInt(at);
        return b.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v);
    }

    /** Writes {@code v} big-endian at {@code at}, whatever {@code b}'s order. */
    public static void putInt(ByteBuffer b, int at, int v) {
        b.putInt(at, b.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v));
    }

    /** Appends {@code v} big-endian at {@code b}'s position, whatever its order. */
    public static void putInt(ByteBuffer b, int v) {
        b.putInt(b.order() == ByteOrder.BIG_ENDIAN ? v : Integer.reverseBytes(v));
    }

    public static byte type(ByteBuffer b, int pos) {
        return b.get(pos + 8);
    }

    /** Writes a header at {@code at} of {@code b} (absolute, position unchanged). */
    public static void putHeader(ByteBuffer b, int at, int length, int id, byte type) {
        putInt(b, at, length);
        putInt(b, at + 4, id);
        b.put(at + 8, type);
    }

    /** Appends a header at {@code b}'s position (relative). */
    public static void writeHeader(ByteBuffer b, int length, int id, byte type) {
        putInt(b, length);
        putInt(b, id);
        b.put(type);
    }

    /** The type's name, for messages. */
    public static String typeName(int type) {
        switch (type) {
            case REQUEST: return "REQUEST";
            case RESPONSE: return "RESPONSE";
            case CANCEL: return "CANCEL";
            case PING: return "PING";
            case GOAWAY: return "GOAWAY";
            default: return "type " + type;
        }
    }
}
