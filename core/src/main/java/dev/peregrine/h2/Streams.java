package dev.peregrine.h2;

/**
 * The open streams of one connection (at most {@code maxConcurrentStreams}, so a small array searched
 * by id beats a map and boxes nothing), and which ids were closed lately (to answer STREAM_CLOSED
 * rather than PROTOCOL_ERROR for a frame on a stream just closed, §5.1).
 *
 * <p><b>Memory of an idle connection</b> (issue 28: at most 512 B each): a connection with no open
 * stream holds no array and no {@link Http2Stream}. The array of open streams and the closed
 * {@link Http2Stream} objects go back to the loop ({@link SpareStreams}, one per loop) when the last open
 * stream closes, and come from there at the next open, so a request still allocates nothing. The
 * closed ids are a bitmap over the 64 ids below the highest one closed:
 * <pre>
 *   closedBits bit i set  &lt;=&gt;  id (closedTop - i) was closed       (0 &lt;= i &lt; 64)
 *   a closed id above closedTop shifts the bitmap; one 64 or more below it is not remembered
 * </pre>
 * Client ids are odd and rise, so that remembers the last 32 streams a client opened. A stream that
 * outlived 32 younger ones and then closed is forgotten: a HEADERS on it gets PROTOCOL_ERROR instead
 * of STREAM_CLOSED, both connection errors (§5.1, §5.1.1).
 *
 * <p>Thread: the loop thread.
 */
final class Streams {
    // No reference to the connection: it passes itself where the loop's spares are needed (8 bytes less a connection).
    private Http2Stream[] open;
    private int count;
    private long closedBits;
    /** The same window as {@link #closedBits}: bit set for a stream we reset while the peer could still send on it. */
    private long resetBits;
    private int closedTop;

    int count() {
        return count;
    }

    /** The {@code i}th open stream (0 to {@link #count()} - 1), in the order they opened. */
    Http2Stream at(int i) {
        return open[i];
    }

    Http2Stream get(int id) {
        for (int i = count - 1; i >= 0; i--) {
            if (open[i].id == id) {
                return open[i];
            }
        }
        return null;
    }

    /** Opens stream {@code id} of {@code conn} with a spare stream (and array) of its loop. */
    Http2Stream open(Http2Connection conn, int id, long sendWindow, long recvWindow) {
        SpareStreams spare = conn.shared.spareStreams;
        Http2Stream s = spare.stream();
        s.reset(id, sendWindow, recvWindow);
        if (open == null) {
            open = spare.array(Math.min(conn.settings.maxConcurrentStreams, 8));
        } else if (count == open.length) {
            open = java.util.Arrays.copyOf(open, count * 2);
        }
        open[count++] = s;
        return s;
    }

    /** Forgets {@code s} (released), and gives it, with the array once empty, to {@code conn}'s loop. */
    void close(Http2Connection conn, Http2Stream s) {
        for (int i = 0; i < count; i++) {
            if (open[i] == s) {
                System.arraycopy(open, i + 1, open, i, count - i - 1);
                open[--count] = null;
                noteClosed(s.id);
                SpareStreams spare = conn.shared.spareStreams;
                spare.give(s);
                if (count == 0) {
                    spare.give(open);
                    open = null;
                }
                return;
            }
        }
    }

    void noteClosed(int id) {
        int shift = id - closedTop;
        if (shift > 0) {
            closedBits = shift >= 64 ? 0 : closedBits << shift;
            resetBits = shift >= 64 ? 0 : resetBits << shift;
            closedTop = id;
            closedBits |= 1;
        } else if (shift > -64) {
            closedBits |= 1L << -shift;
        }
    }

    /**
     * We closed stream {@code id} (already {@link #noteClosed noted}) with RST_STREAM while the peer's side
     * was open (an answer before the whole request, RFC 9113 §8.1): frames the peer had already sent on it
     * are ignored, not answered (§5.1, closed).
     */
    void noteReset(int id) {
        int back = closedTop - id;
        if (back >= 0 && back < 64) {
            resetBits |= 1L << back;
        }
    }

    /** Whether {@code id} is a recently closed stream we reset ({@link #noteReset}). */
    boolean resetByUs(int id) {
        int back = closedTop - id;
        return back >= 0 && back < 64 && (resetBits & 1L << back) != 0;
    }

    boolean recentlyClosed(int id) {
        int back = closedTop - id;
        return back >= 0 && back < 64 && (closedBits & 1L << back) != 0;
    }

    /** Whether some open stream is not waiting for a handler off the loop (a body arriving, an answer being made). */
    boolean anyNotAwaiting() {
        for (int i = 0; i < count; i++) {
            if (!open[i].awaiting) {
                return true;
            }
        }
        return false;
    }

    /** §6.9.2: SETTINGS_INITIAL_WINDOW_SIZE changed by {@code delta}; false when a window would pass 2^31-1. */
    boolean adjustSendWindows(long delta) {
        for (int i = 0; i < count; i++) {
            if (open[i].sendWindow + delta > Integer.MAX_VALUE) {
                return false;
            }
        }
        for (int i = 0; i < count; i++) {
            open[i].sendWindow += delta;
        }
        return true;
    }

    void closeAll(Http2Connection conn) {
        while (count > 0) {
            conn.closeStream(open[count - 1]);
        }
    }
}
