package dev.peregrine.h2;

import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.frame.FrameWriter;
import dev.peregrine.h2.hpack.HpackEncoder;

import java.nio.ByteBuffer;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * The peer's settings that bind what we send (RFC 9113 §6.5.2), applied one at a time from a
 * SETTINGS frame or an h2c upgrade's {@code HTTP2-Settings}:
 * <pre>
 *   SETTINGS_ENABLE_PUSH         0 or 1, else PROTOCOL_ERROR (we never push anyway)
 *   SETTINGS_INITIAL_WINDOW_SIZE at most 2^31-1, else FLOW_CONTROL_ERROR; the change applies to every
 *                                open stream's send window (§6.9.2), which must stay at most 2^31-1
 *   SETTINGS_MAX_FRAME_SIZE      2^14 to 2^24-1, else PROTOCOL_ERROR; caps our DATA and field-block frames
 *   SETTINGS_HEADER_TABLE_SIZE   any value: the most our HPACK encoder's table may hold (capped at
 *                                HpackEncoder.TABLE_SIZE); the lowest since our last field block is kept
 *                                too, as RFC 7541 §4.2 has the encoder signal it ({@link #tableSizeSeen}); both
 *                                packed in one int of the connection's (16 bits each)
 *   others, unknown ones         ignored (§6.5.2)
 * </pre>
 * A WINDOW_UPDATE (§6.9) raises the connection's or a stream's send window ({@link #windowUpdate}), at most
 * to 2^31-1, else FLOW_CONTROL_ERROR (§6.9.1).
 * The values kept are the connection's fields ({@link Http2Connection#peerInitialWindow},
 * {@link Http2Connection#peerMaxFrameSize}, {@link Http2Connection#peerTableSizes}): no object of their
 * own per connection (issue 28).
 *
 * <p>Thread: the loop thread.
 */
final class PeerSettings {
    private PeerSettings() {
    }

    /** A SETTINGS frame {@code p} parsed in {@code b}: applied and ACKed, or a connection error (§6.5). */
    static void frame(Http2Connection conn, FrameParser p, ByteBuffer b) {
        if (p.flag(FLAG_ACK)) {
            return;
        }
        if (FloodGuard.note(FloodGuard.SETTINGS, conn)) {
            conn.connectionError(ENHANCE_YOUR_CALM);
            return;
        }
        for (int at = p.payloadStart(); at < p.frameEnd(); at += 6) {
            int id = (b.get(at) & 0xff) << 8 | (b.get(at + 1) & 0xff);
            if (!conn.applySetting(id, FrameParser.int32(b, at + 2))) {
                return;
            }
        }
        FrameWriter.settingsAck(conn.c);
    }

    /** The peer's SETTINGS_HEADER_TABLE_SIZE now (at most {@link HpackEncoder#TABLE_SIZE}). */
    static int tableSize(Http2Connection conn) {
        return conn.peerTableSizes >>> 16;
    }

    /** The lowest SETTINGS_HEADER_TABLE_SIZE since our last field block ({@link #tableSizeSeen}). */
    static int lowestTableSize(Http2Connection conn) {
        return conn.peerTableSizes & 0xffff;
    }

    /** Our encoder has signalled the sizes (RFC 7541 §4.2): from now on the lowest is the current one. */
    static void tableSizeSeen(Http2Connection conn) {
        int size = tableSize(conn);
        conn.peerTableSizes = size << 16 | size;
    }

    /** Applies setting {@code id}; returns 0, or the code of the connection error it is. */
    static int apply(Http2Connection conn, int id, int value) {
        switch (id) {
            case SETTINGS_ENABLE_PUSH:
                return value != 0 && value != 1 ? PROTOCOL_ERROR : 0;
            case SETTINGS_INITIAL_WINDOW_SIZE:
                if (value < 0) { // above 2^31-1 as an unsigned value
                    return FLOW_CONTROL_ERROR;
                }
                if (!conn.streams.adjustSendWindows((long) value - conn.peerInitialWindow)) {
                    return FLOW_CONTROL_ERROR;
                }
                conn.peerInitialWindow = value;
                return 0;
            case SETTINGS_MAX_FRAME_SIZE:
                if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_MAX_FRAME_SIZE) {
                    return PROTOCOL_ERROR;
                }
                conn.peerMaxFrameSize = value;
                return 0;
            case SETTINGS_HEADER_TABLE_SIZE:
                // above 2^31-1 as an unsigned value: plenty; more than our encoder's table is as good as its size
                int size = value < 0 || value > HpackEncoder.TABLE_SIZE ? HpackEncoder.TABLE_SIZE : value;
                conn.peerTableSizes = size << 16 | Math.min(lowestTableSize(conn), size);
                return 0;
            default:
                return 0;
        }
    }

    /** A WINDOW_UPDATE {@code p} parsed in {@code b}, on stream {@code id} (0: the connection) of {@code conn}. */
    static void windowUpdate(Http2Connection conn, FrameParser p, ByteBuffer b, int id) {
        int increment = p.windowIncrement(b);
        if (id == 0) {
            if (increment > MAX_WINDOW - conn.sendWindow) {
                conn.connectionError(FLOW_CONTROL_ERROR); // §6.9.1: above 2^31-1
                return;
            }
            conn.sendWindow += increment;
            return;
        }
        Http2Stream s = conn.streams.get(id);
        if (s == null) {
            if (id > conn.lastStreamId) {
                conn.connectionError(PROTOCOL_ERROR); // §5.1: WINDOW_UPDATE on an idle stream
            }
            return; // closed: ignored (§6.9)
        }
        s.sendWindow += increment;
        if (s.sendWindow > MAX_WINDOW) {
            conn.streamError(id, FLOW_CONTROL_ERROR);
        }
    }
}
