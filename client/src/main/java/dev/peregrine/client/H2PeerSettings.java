package dev.peregrine.client;

import dev.peregrine.h2.frame.FrameParser;

import java.nio.ByteBuffer;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * The server's settings that bind what an {@link Http2ClientConnection} sends (RFC 9113 §6.5.2),
 * applied from each SETTINGS frame:
 * <pre>
 *   SETTINGS_ENABLE_PUSH            anything but 0 from a server: PROTOCOL_ERROR
 *   SETTINGS_MAX_CONCURRENT_STREAMS streams we open at once (100 assumed until the first SETTINGS)
 *   SETTINGS_INITIAL_WINDOW_SIZE    above 2^31-1: FLOW_CONTROL_ERROR; the change applies to every open
 *                                   stream's send window, which must stay at most 2^31-1 (§6.9.2)
 *   SETTINGS_MAX_FRAME_SIZE         2^14 to 2^24-1, else PROTOCOL_ERROR; caps our DATA and HEADERS
 *   SETTINGS_HEADER_TABLE_SIZE      ignored: our blocks use no dynamic table; unknown ones too
 * </pre>
 * Thread: the connection's loop thread.
 */
final class H2PeerSettings {
    int maxStreams = 100;
    int initialWindow = DEFAULT_WINDOW;
    int maxFrameSize = DEFAULT_MAX_FRAME_SIZE;
    /** After {@link #apply} failed: why. */
    String error;

    /** Applies the settings in {@code [from, to)} of {@code b}; returns 0, or the connection error's code. */
    int apply(ByteBuffer b, int from, int to, H2Stream[] streams, int open) {
        for (int at = from; at < to; at += 6) {
            int id = (b.get(at) & 0xff) << 8 | (b.get(at + 1) & 0xff);
            int value = FrameParser.int32(b, at + 2);
            switch (id) {
                case SETTINGS_ENABLE_PUSH:
                    if (value != 0) {
                        return fail(PROTOCOL_ERROR, "a server set ENABLE_PUSH");
                    }
                    break;
                case SETTINGS_MAX_CONCURRENT_STREAMS:
                    maxStreams = value < 0 ? Integer.MAX_VALUE : value;
                    break;
                case SETTINGS_INITIAL_WINDOW_SIZE:
                    if (value < 0) {
                        return fail(FLOW_CONTROL_ERROR, "INITIAL_WINDOW_SIZE above 2^31-1");
                    }
                    long delta = (long) value - initialWindow;
                    for (int i = 0; i < open; i++) {
                        streams[i].sendWindow += delta;
                        if (streams[i].sendWindow > MAX_WINDOW) {
                            return fail(FLOW_CONTROL_ERROR, "a stream window above 2^31-1");
                        }
                    }
                    initialWindow = value;
                    break;
                case SETTINGS_MAX_FRAME_SIZE:
                    if (value < DEFAULT_MAX_FRAME_SIZE || value > MAX_MAX_FRAME_SIZE) {
                        return fail(PROTOCOL_ERROR, "MAX_FRAME_SIZE out of range");
                    }
                    maxFrameSize = value;
                    break;
                default:
                    break;
            }
        }
        return 0;
    }

    private int fail(int code, String why) {
        error = why;
        return code;
    }
}
