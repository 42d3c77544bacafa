package dev.peregrine.h2;

/**
 * Per-connection counts of the frames a flood is made of, over a fixed window of the loop clock
 * ({@link Http2Settings#floodWindowMillis}); {@link #note} says when one passes its limit (counting
 * the flood in {@link Http2Counters}), and the connection then ends with GOAWAY ENHANCE_YOUR_CALM. A window, not a rate per frame: a client
 * that is merely busy stays far below every limit, and counting costs an int increment.
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

    // Five counts in fields and the limits read from the connection's shared settings: no array nor
    // settings reference per connection (an idle connection holds this object, issue 28's census counts it).
    private int resets;
    private int serverResets;
    private int settingsFrames;
    private int pings;
    private int empty;
    private long windowStart;

    void start(long nowMillis) {
        windowStart = nowMillis;
        resets = 0;
        serverResets = 0;
        settingsFrames = 0;
        pings = 0;
        empty = 0;
    }

    /** Counts one {@code kind} on {@code conn} now; true when that passes its limit (a flood, counted). */
    boolean note(int kind, Http2Connection conn) {
        long nowMillis = conn.now();
        Http2Settings settings = conn.settings;
        if (nowMillis - windowStart >= settings.floodWindowMillis) {
            start(nowMillis);
        }
        Http2Counters counters = conn.shared.counters;
        switch (kind) {
            case RESET:
                if (++resets <= settings.maxResetsPerWindow) {
                    return false;
                }
                counters.rapidResets++;
                return true;
            case SERVER_RESET:
                if (++serverResets <= settings.maxServerResetsPerWindow) {
                    return false;
                }
                counters.serverResetFloods++;
                return true;
            case SETTINGS:
                if (++settingsFrames <= settings.maxSettingsPerWindow) {
                    return false;
                }
                counters.settingsFloods++;
                return true;
            case PING:
                if (++pings <= settings.maxPingsPerWindow) {
                    return false;
                }
                counters.pingFloods++;
                return true;
            case EMPTY:
                if (++empty <= settings.maxEmptyDataPerWindow) {
                    return false;
                }
                counters.emptyDataFloods++;
                return true;
            default:
                throw new IllegalArgumentException("flood kind " + kind);
        }
    }
}
