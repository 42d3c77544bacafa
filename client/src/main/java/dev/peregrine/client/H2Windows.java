package dev.peregrine.client;

import dev.peregrine.h2.frame.FrameWriter;
import dev.peregrine.loop.Connection;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * Flow control of one {@link Http2ClientConnection}, both ways (RFC 9113 §5.2, §6.9):
 * <pre>
 *   ours     streams {@link Http2ClientConnection#STREAM_WINDOW}, the connection
 *            {@link Http2ClientConnection#CONNECTION_WINDOW}; what a stream or the connection received
 *            is given back with WINDOW_UPDATE once half its window is used (a body is taken into memory
 *            as it arrives, so the window follows the caller)
 *   theirs   request bodies go out in DATA frames of at most the server's MAX_FRAME_SIZE, within both
 *            its connection window and the stream's; what does not fit waits in the request's own array
 *            (never copied) for a WINDOW_UPDATE or a larger SETTINGS_INITIAL_WINDOW_SIZE
 * </pre>
 * Thread: the connection's loop thread.
 */
final class H2Windows {
    /** What we may still send on the connection (the server's window). */
    long sendWindow = DEFAULT_WINDOW;
    private int recvUnacked;

    /** {@code n} bytes of DATA (padding included) arrived on the connection. */
    void received(Connection c, int n) {
        recvUnacked += n;
        if (recvUnacked >= Http2ClientConnection.CONNECTION_WINDOW / 2) {
            FrameWriter.windowUpdate(c, 0, recvUnacked);
            recvUnacked = 0;
        }
    }

    /** {@code n} bytes of DATA arrived on {@code s}, whose stream goes on. */
    void received(Connection c, H2Stream s, int n) {
        s.recvUnacked += n;
        if (s.recvUnacked >= Http2ClientConnection.STREAM_WINDOW / 2) {
            FrameWriter.windowUpdate(c, s.id, s.recvUnacked);
            s.recvUnacked = 0;
        }
    }

    /** Sends DATA of {@code s}'s body while the windows allow. */
    void send(Connection c, H2Stream s, int maxFrameSize) {
        while (!s.localEnded) {
            int left = s.body.length - s.sent;
            int n = (int) Math.min(Math.min(left, maxFrameSize), Math.min(sendWindow, s.sendWindow));
            if (n <= 0 && left > 0) {
                return; // the windows are shut: WINDOW_UPDATE resumes
            }
            boolean end = n == left;
            FrameWriter.data(c, s.id, end, s.body, s.sent, n);
            s.sent += n;
            sendWindow -= n;
            s.sendWindow -= n;
            s.localEnded = end;
        }
    }

    /** The windows opened: bodies waiting go on, in the order their streams opened. */
    void resume(Connection c, H2StreamTable streams, int maxFrameSize) {
        for (int i = 0; i < streams.open && sendWindow > 0; i++) {
            H2Stream s = streams.all[i];
            if (s.blocked() && s.sendWindow > 0) {
                send(c, s, maxFrameSize);
            }
        }
    }
}
