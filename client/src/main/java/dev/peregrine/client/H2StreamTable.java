package dev.peregrine.client;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The open streams of an {@link Http2ClientConnection}, in the order they were opened (a small array,
 * searched by id: a connection has at most the server's MAX_CONCURRENT_STREAMS), and the streams that
 * ended, kept for the next calls so a warm connection makes none.
 *
 * <p>Thread: the connection's loop thread.
 */
final class H2StreamTable {
    H2Stream[] all = new H2Stream[8];
    int open;
    private final ArrayDeque<H2Stream> free = new ArrayDeque<>();

    /** A stream to start: a kept one, else a new one. */
    H2Stream take() {
        return free.isEmpty() ? new H2Stream() : free.pollFirst();
    }

    void add(H2Stream s) {
        if (open == all.length) {
            all = Arrays.copyOf(all, open * 2);
        }
        all[open++] = s;
    }

    /** The open stream {@code id}, or null. */
    H2Stream find(int id) {
        for (int i = 0; i < open; i++) {
            if (all[i].id == id) {
                return all[i];
            }
        }
        return null;
    }

    /** {@code s} ended: it leaves the open ones, lets go of its call and is kept for reuse. */
    void remove(H2Stream s) {
        for (int i = 0; i < open; i++) {
            if (all[i] == s) {
                System.arraycopy(all, i + 1, all, i, open - i - 1);
                all[--open] = null;
                break;
            }
        }
        s.clear();
        free.addFirst(s);
    }
}
