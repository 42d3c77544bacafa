package dev.peregrine.h2.frame;

import java.nio.ByteBuffer;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * Reads one HTTP/2 frame at a time in place (a flyweight): {@link #parse} looks at the bytes
 * {@code [pos, end)} of any buffer, and when a whole frame is there records where its parts are and
 * checks the rules that need no connection state. Nothing is copied; the recorded offsets are valid
 * until the caller lets go of the bytes. Incremental at any split: with less than a whole frame it
 * answers {@link #NEED_MORE} and the caller offers the same first byte again with more behind it
 * ({@link #needed} says how many bytes the frame takes once its header is there).
 *
 * <p><b>Layout</b> (RFC 9113 §4.1, big-endian):
 * <pre>
 *  +-----------------------------------------------+
 *  |                 Length (24)                   |
 *  +---------------+---------------+---------------+
 *  |   Type (8)    |   Flags (8)   |
 *  +-+-------------+---------------+-------------------------------+
 *  |R|                 Stream Identifier (31)                      |
 *  +=+=============================================================+
 *  |                   Frame Payload (0...)                      ...
 *  +---------------------------------------------------------------+
 *
 *  DATA / HEADERS with PADDED:  [Pad Length (8)] [HEADERS with PRIORITY: E(1) Dependency(31) Weight(8)]
 *                               fragment [dataStart, dataEnd)  Padding (Pad Length bytes, ignored)
 * </pre>
 *
 * <p><b>Checked here</b> (anything else is the connection's, which knows the streams):
 * <pre>
 *  rule                                                         error           scope       RFC 9113
 *  length above SETTINGS_MAX_FRAME_SIZE                         FRAME_SIZE      connection  §4.2
 *  DATA, HEADERS, PRIORITY, RST_STREAM, CONTINUATION on 0       PROTOCOL        connection  §6.1-6.4, §6.10
 *  SETTINGS, PING, GOAWAY on a stream                           PROTOCOL        connection  §6.5, §6.7, §6.8
 *  padding not shorter than the payload                         PROTOCOL        connection  §6.1, §6.2
 *  PRIORITY not 5 bytes                                         FRAME_SIZE      stream      §6.3
 *  RST_STREAM not 4, PING not 8, WINDOW_UPDATE not 4 bytes      FRAME_SIZE      connection  §6.4, §6.7, §6.9
 *  SETTINGS ACK not empty, SETTINGS length not a multiple of 6  FRAME_SIZE      connection  §6.5
 *  GOAWAY under 8 bytes                                         FRAME_SIZE      connection  §6.8
 *  WINDOW_UPDATE increment 0                                    PROTOCOL        its stream  §6.9
 * </pre>
 * Unknown frame types are parsed and left to the caller to ignore (§4.1, §5.5); the reserved bit is
 * ignored. PRIORITY frames and the priority fields of HEADERS are parsed ({@link #dependency}) so that
 * a stream depending on itself can be refused (RFC 7540 §5.3.1), and otherwise ignored, as RFC 9113
 * §5.3.2 deprecates the scheme.
 *
 * <p>Thread: one owner (the connection's loop).
 */
public final class FrameParser {
    /** {@link #parse}: the frame is not all here yet. */
    public static final int NEED_MORE = -1;
    /** {@link #parse}: the frame breaks a rule: {@link #errorCode}, on {@link #errorStream} (0: the connection). */
    public static final int ERROR = -2;

    private static final int PRIORITY_PRESENT = 1 << 9;
    private static final int PRIORITY_EXCLUSIVE = 1 << 8;

    private int maxFrameSize = DEFAULT_MAX_FRAME_SIZE;

    private int type;
    private int flags;
    private int streamId;
    private int length;
    private int payloadStart;
    private int dataStart;
    private int dataEnd;
    private int dependency;
    /** The priority fields packed (one int, not three fields: every HTTP/2 connection holds a parser):
     *  bit 9 present, bit 8 exclusive, bits 0-7 the weight less one. */
    private int priority;
    private int errorCode;
    private int errorStream;
    private int needed;

    /** The largest payload accepted: our SETTINGS_MAX_FRAME_SIZE (§6.5.2). */
    public void maxFrameSize(int bytes) {
        if (bytes < DEFAULT_MAX_FRAME_SIZE || bytes > MAX_MAX_FRAME_SIZE) {
            throw new IllegalArgumentException("SETTINGS_MAX_FRAME_SIZE out of range: " + bytes);
        }
        maxFrameSize = bytes;
    }

    /**
     * Parses the frame at {@code pos}. Returns the index after it, {@link #NEED_MORE} or {@link #ERROR}.
     * A frame whose header shows an error (its length) is refused as soon as the header is here.
     */
    public int parse(ByteBuffer b, int pos, int end) {
        int avail = end - pos;
        if (avail < HEADER_LENGTH) {
            needed = HEADER_LENGTH;
            return NEED_MORE;
        }
        length = (b.get(pos) & 0xff) << 16 | (b.get(pos + 1) & 0xff) << 8 | (b.get(pos + 2) & 0xff);
        type = b.get(pos + 3) & 0xff;
        flags = b.get(pos + 4) & 0xff;
        streamId = int32(b, pos + 5) & 0x7fff_ffff; // §4.1: the reserved bit is ignored
        priority = 0;
        if (length > maxFrameSize) {
            return error(FRAME_SIZE_ERROR, 0);
        }
        needed = HEADER_LENGTH + length;
        if (avail < needed) {
            return NEED_MORE;
        }
        payloadStart = pos + HEADER_LENGTH;
        dataStart = payloadStart;
        dataEnd = payloadStart + length;
        int r = check(b);
        return r < 0 ? r : frameEnd();
    }

    private int check(ByteBuffer b) {
        switch (type) {
            case DATA:
                if (streamId == 0) {
                    return error(PROTOCOL_ERROR, 0);
                }
                return padding(b, 0);
            case HEADERS:
                if (streamId == 0) {
                    return error(PROTOCOL_ERROR, 0);
                }
                return padding(b, (flags & FLAG_PRIORITY) != 0 ? 5 : 0);
            case PRIORITY:
                if (streamId == 0) {
                    return error(PROTOCOL_ERROR, 0);
                }
                if (length != 5) {
                    return error(FRAME_SIZE_ERROR, streamId);
                }
                priority(b, payloadStart);
                return 0;
            case RST_STREAM:
                if (streamId == 0) {
                    return error(PROTOCOL_ERROR, 0);
                }
                return length != 4 ? error(FRAME_SIZE_ERROR, 0) : 0;
            case SETTINGS:
                if (streamId != 0) {
                    return error(PROTOCOL_ERROR, 0);
                }
                if ((flags & FLAG_ACK) != 0 ? length != 0 : length % 6 != 0) {
                    return error(FRAME_SIZE_ERROR, 0);
                }
                return 0;
            case PUSH_PROMISE:
                return padding(b, 4);
            case PING:
                if (streamId != 0) {
                    return error(PROTOCOL_ERROR, 0);
                }
                return length != 8 ? error(FRAME_SIZE_ERROR, 0) : 0;
            case GOAWAY:
                if (streamId != 0) {
                    return error(PROTOCOL_ERROR, 0);
                }
                return length < 8 ? error(FRAME_SIZE_ERROR, 0) : 0;
            case WINDOW_UPDATE:
                if (length != 4) {
                    return error(FRAME_SIZE_ERROR, 0);
                }
                return windowIncrement(b) == 0 ? error(PROTOCOL_ERROR, streamId) : 0;
            case CONTINUATION:
                return streamId == 0 ? error(PROTOCOL_ERROR, 0) : 0;
            default:
                return 0; // §5.5: unknown types are ignored
        }
    }

    /** Strips the Pad Length byte, {@code fixed} bytes after it, and the padding (§6.1, §6.2, §6.6). */
    private int padding(ByteBuffer b, int fixed) {
        int pad = 0;
        int at = payloadStart;
        if ((flags & FLAG_PADDED) != 0) {
            if (length < 1) {
                return error(FRAME_SIZE_ERROR, 0);
            }
            pad = b.get(at) & 0xff;
            at++;
        }
        if (at + fixed > dataEnd) {
            return error(FRAME_SIZE_ERROR, 0);
        }
        if (type == HEADERS && fixed == 5) {
            priority(b, at);
        }
        at += fixed;
        if (pad > dataEnd - at) {
            return error(PROTOCOL_ERROR, 0); // §6.1: padding as long as the payload or longer
        }
        dataStart = at;
        dataEnd -= pad;
        return 0;
    }

    private void priority(ByteBuffer b, int at) {
        int v = int32(b, at);
        dependency = v & 0x7fff_ffff;
        priority = PRIORITY_PRESENT | (v < 0 ? PRIORITY_EXCLUSIVE : 0) | (b.get(at + 4) & 0xff);
    }

    private int error(int code, int stream) {
        errorCode = code;
        errorStream = stream;
        return ERROR;
    }

    /** Big-endian 32 bits at {@code at}. */
    public static int int32(ByteBuffer b, int at) {
        return (b.get(at) & 0xff) << 24 | (b.get(at + 1) & 0xff) << 16 | (b.get(at + 2) & 0xff) << 8 | (b.get(at + 3) & 0xff);
    }

    public int type() {
        return type;
    }

    public int flags() {
        return flags;
    }

    public boolean flag(int flag) {
        return (flags & flag) != 0;
    }

    public int streamId() {
        return streamId;
    }

    /** The payload's length as sent, padding included (what flow control counts, §6.9). */
    public int length() {
        return length;
    }

    /** The index after the last frame (valid also after a stream-scoped {@link #ERROR}). */
    public int frameEnd() {
        return payloadStart + length;
    }

    public int payloadStart() {
        return payloadStart;
    }

    /** Where the frame's content begins: DATA's data, HEADERS' or CONTINUATION's field block fragment. */
    public int dataStart() {
        return dataStart;
    }

    /** Where the frame's content ends (before any padding). */
    public int dataEnd() {
        return dataEnd;
    }

    /** Whether the last frame carried priority fields (PRIORITY, or HEADERS with the PRIORITY flag). */
    public boolean hasPriority() {
        return (priority & PRIORITY_PRESENT) != 0;
    }

    public int dependency() {
        return dependency;
    }

    public boolean exclusive() {
        return (priority & PRIORITY_EXCLUSIVE) != 0;
    }

    public int weight() {
        return (priority & 0xff) + 1;
    }

    /** RST_STREAM's and GOAWAY's error code. */
    public int errorCodeField(ByteBuffer b) {
        return int32(b, type == GOAWAY ? payloadStart + 4 : payloadStart);
    }

    /** GOAWAY's last stream id. */
    public int lastStreamId(ByteBuffer b) {
        return int32(b, payloadStart) & 0x7fff_ffff;
    }

    /** WINDOW_UPDATE's increment (reserved bit dropped). */
    public int windowIncrement(ByteBuffer b) {
        return int32(b, payloadStart) & 0x7fff_ffff;
    }

    /** After {@link #ERROR}: the error code (§7). */
    public int errorCode() {
        return errorCode;
    }

    /** After {@link #ERROR}: 0 for a connection error, else the stream to reset. */
    public int errorStream() {
        return errorStream;
    }

    /** After {@link #NEED_MORE}: how many bytes from the frame's first the frame needs. */
    public int needed() {
        return needed;
    }
}
