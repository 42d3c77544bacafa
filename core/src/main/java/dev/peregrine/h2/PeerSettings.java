package dev.peregrine.h2;

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
 *                                too, as RFC 7541 §4.2 has the encoder signal it ({@link #tableSizeSeen})
 *   others, unknown ones         ignored (§6.5.2)
 * </pre>
 * Thread: the loop thread.
 */
final class PeerSettings {
    int initialWindow = DEFAULT_WINDOW;
    int maxFrameSize = DEFAULT_MAX_FRAME_SIZE;
    /** SETTINGS_HEADER_TABLE_SIZE now, and the lowest it has been since {@link #tableSizeSeen} (§6.5.2: 4096 at first). */
    int headerTableSize = DEFAULT_HEADER_TABLE_SIZE;
    int lowestHeaderTableSize = DEFAULT_HEADER_TABLE_SIZE;

    /** Applies setting {@code id}; returns 0, or the code of the connection error it is. */
    int apply(int id, int value, Streams streams) {
        switch (id) {
            case SETTINGS_ENABLE_PUSH:
                return value != 0 && value != 1 ? PROTOCOL_ERROR : 0;
            case SETTINGS_INITIAL_WINDOW_SIZE:
                if (value < 0) { // above 2^31-1 as an unsigned value
                    return FLOW_CONTROL_ERROR;
                }
                if (!streams.adjustSendWindows((long) value - initialWindow)) {
                    return FLOW_CONTROL_ERROR;
                }
                initialWindow = value;
                return 0;
            case SETTINGS_MAX_FRAME_SIZE:
                if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_MAX_FRAME_SIZE) {
                    return PROTOCOL_ERROR;
                }
                maxFrameSize = value;
                return 0;
            case SETTINGS_HEADER_TABLE_SIZE:
                int size = value < 0 ? Integer.MAX_VALUE : value; // above 2^31-1 as an unsigned value: plenty
                headerTableSize = size;
                lowestHeaderTableSize = Math.min(lowestHeaderTableSize, size);
                return 0;
            default:
                return 0;
        }
    }

    /** A field block is being encoded: it signals the size changes so far, so the lowest starts again. */
    void tableSizeSeen() {
        lowestHeaderTableSize = headerTableSize;
    }
}
