package dev.peregrine.h2;

/**
 * The open streams of one connection (at most {@code maxConcurrentStreams}, so a small array searched
 * by id beats a map and boxes nothing), closed ones kept for reuse, and the last few closed ids
 * (to answer STREAM_CLOSED rather than PROTOCOL_ERROR for a frame on a stream just closed, §5.1).
 * Thread: the loop thread.
 */
final class Streams {
    private Http2Stream[] open;
    private int count;
    private Http2Stream[] free = new Http2Stream[4];
    private int freeCount;
    private final int[] recent = new int[16];
    private int recentAt;

    Streams(int maxConcurrent) {
        open = new Http2Stream[Math.min(maxConcurrent, 8)];
    }

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

    Http2Stream open(int id, long sendWindow, long recvWindow) {
        Http2Stream s = freeCount > 0 ? free[--freeCount] : new Http2Stream();
        s.reset(id, sendWindow, recvWindow);
        if (count == open.length) {
            open = java.util.Arrays.copyOf(open, count * 2);
        }
        open[count++] = s;
        return s;
    }

    void close(Http2Stream s) {
        for (int i = 0; i < count; i++) {
            if (open[i] == s) {
                System.arraycopy(open, i + 1, open, i, count - i - 1);
                open[--count] = null;
                noteClosed(s.id);
                if (freeCount == free.length) {
                    free = java.util.Arrays.copyOf(free, freeCount * 2);
                }
                free[freeCount++] = s;
                return;
            }
        }
    }

    void noteClosed(int id) {
        recent[recentAt] = id;
        recentAt = (recentAt + 1) % recent.length;
    }

    boolean recentlyClosed(int id) {
        for (int r : recent) {
            if (r == id) {
                return true;
            }
        }
        return false;
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
