package dev.peregrine.h2;

/**
 * Per-connection counts of the frames a flood is made of, over a fixed window of the loop clock
 * ({@link Http2Settings#floodWindowMillis}); {@link #note} says when one passes its limit (counting
 * the flood in {@link Http2Counters}), and the connection then ends with GOAWAY ENHANCE_YOUR_CALM.
 * A window, not a rate per frame: a client that is merely busy stays far below every limit, and
 * counting costs an increment. The counts are fields of the {@link Http2Connection} (no object
 * per connection: issue 28), a {@code char} each (every limit is at most 65,535, {@link dev.peregrine.Http2Options}),
 * the limits its shared settings'.
 * <pre>
 *   RESET         RST_STREAM received (rapid reset, CVE-2023-44487)
 *   SERVER_RESET  RST_STREAM we sent for a stream error the client caused (MadeYouReset, CVE-2025-8671)
 *   SETTINGS      SETTINGS received (CVE-2019-9515)
 *   PING          PING received (CVE-2019-9512)
 *   EMPTY         DATA without payload nor END_STREAM, or empty CONTINUATION (CVE-2019-9518)
 * </pre>
 * Thread: the loop thread.
 */
final class FloodGuard {
    static final int RESET = 0;
    static final int SERVER_RESET = 1;
    static final int SETTINGS = 2;
    static final int PING = 3;
    static final int EMPTY = 4;

    private FloodGuard() {
    }

    /** Starts {@code conn}'s window at {@code nowMillis}, every count at 0. */
    static void start(Http2Connection conn, long nowMillis) {
        conn.floodWindowStart = (int) nowMillis;
        conn.resets = 0;
        conn.serverResets = 0;
        conn.settingsFrames = 0;
        conn.pings = 0;
        conn.emptyFrames = 0;
    }

    /**
     * Counts one {@code kind} on {@code conn} now; true when that passes its limit (a flood, counted). A count
     * stops at its limit (at most 65,535: its {@code char} never wraps), where the next frame is the flood.
     */
    static boolean note(int kind, Http2Connection conn) {
        long nowMillis = conn.now();
        Http2Settings settings = conn.settings;
        // The window's start is kept as the clock's low 32 bits (issue 28): the difference is right while under
        // 2^31 ms (24.8 days; the window is at most a day, Http2Options); a negative one is a start that long
        // ago (a connection quiet for weeks), so a new window too. Only a gap of 49.7 days, give or take a
        // window, would look recent, and then carry the old counts (each under its limit) into this window.
        int elapsed = (int) nowMillis - conn.floodWindowStart;
        if (elapsed < 0 || elapsed >= settings.floodWindowMillis) {
            start(conn, nowMillis);
        }
        Http2Counters counters = conn.shared.counters;
        switch (kind) {
            case RESET:
                if (conn.resets < settings.maxResetsPerWindow) {
                    conn.resets++;
                    return false;
                }
                counters.rapidResets++;
                return true;
            case SERVER_RESET:
                if (conn.serverResets < settings.maxServerResetsPerWindow) {
                    conn.serverResets++;
                    return false;
                }
                counters.serverResetFloods++;
                return true;
            case SETTINGS:
                if (conn.settingsFrames < settings.maxSettingsPerWindow) {
                    conn.settingsFrames++;
                    return false;
                }
                counters.settingsFloods++;
                return true;
            case PING:
                if (conn.pings < settings.maxPingsPerWindow) {
                    conn.pings++;
                    return false;
                }
                counters.pingFloods++;
                return true;
            case EMPTY:
                if (conn.emptyFrames < settings.maxEmptyDataPerWindow) {
                    conn.emptyFrames++;
                    return false;
                }
                counters.emptyDataFloods++;
                return true;
            default:
                throw new IllegalArgumentException("flood kind " + kind);
        }
    }
}
