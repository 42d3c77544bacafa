package dev.peregrine.client;

import dev.peregrine.h2.frame.FrameWriter;
import dev.peregrine.loop.Connection;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * The client's side of an HTTP/2 connection's start (RFC 9113 §3.4): the preface, our SETTINGS
 * (ENABLE_PUSH 0, our stream window, our field list limit) and a WINDOW_UPDATE raising the
 * connection's window; and the one answer to an h2c preface that is not HTTP/2: an HTTP/1.1 status line
 * (a server speaking only HTTP/1.1 answers the preface as a request; RFC 9113 §3.3 leaves it to us).
 *
 * <p>Thread: any (constants and pure functions); {@link #write} on the connection's loop thread.
 */
final class H2Preface {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HTTP1 = "HTTP/1.".getBytes(StandardCharsets.US_ASCII);
    /** {@link #http1Answer}: the input is too short to tell. */
    static final int UNSURE = -1;

    private H2Preface() {
    }

    /** Writes the preface, SETTINGS and WINDOW_UPDATE into {@code c}'s batch. */
    static void write(Connection c, int streamWindow, int connectionWindow, int maxHeaderList) {
        c.append(PREFACE, 0, PREFACE.length);
        FrameWriter.settings(c, SETTINGS_ENABLE_PUSH, 0, SETTINGS_INITIAL_WINDOW_SIZE, streamWindow,
                SETTINGS_MAX_HEADER_LIST_SIZE, maxHeaderList);
        FrameWriter.windowUpdate(c, 0, connectionWindow - DEFAULT_WINDOW);
    }

    /** Whether {@code [pos, end)} begins an HTTP/1.x status line: 1 yes, 0 no, {@link #UNSURE}. */
    static int http1Answer(ByteBuffer buf, int pos, int end) {
        int n = Math.min(end - pos, HTTP1.length);
        for (int i = 0; i < n; i++) {
            if (buf.get(pos + i) != HTTP1[i]) {
                return 0;
            }
        }
        return n < HTTP1.length ? UNSURE : 1;
    }
}
