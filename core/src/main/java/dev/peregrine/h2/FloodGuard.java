package dev.peregrine.h2;

/**
 * Per-connection counts of the frames a flood is made of, over a fixed window of the loop clock
 * ({@link Http2Settings#floodWindowMillis}); {@link #note} says when one passes its limit, and the
 * connection then ends with GOAWAY ENHANCE_YOUR_CALM. A window, not a rate per frame: a client
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

    // Five counts in fields and the limits read from the shared settings: no array per connection
    // (an idle connection holds this object, issue 28's census counts it).
    private final Http2Settings settings;
    private int resets;
    private int serverResets;
    private int settingsFrames;
    private int pings;
    private int empty;
    private long windowStart;

    FloodGuard(Http2Settings s) {
        settings = s;
    }

    void start(long nowMillis) {
        windowStart = nowMillis;
        resets = 0;
        serverResets = 0;
        settingsFrames = 0;
        pings = 0;
        empty = 0;
    }

    /** Counts one {@code kind} at {@code nowMillis}; true when that passes its limit. */
    boolean note(int kind, long nowMillis) {
        if (nowMillis - windowStart >= settings.floodWindowMillis) {
            start(nowMillis);
        }
        switch (kind) {
            case RESET:
                return ++resets > settings.maxResetsPerWindow;
            case SERVER_RESET:
                return ++serverResets > settings.maxServerResetsPerWindow;
            case SETTINGS:
                return ++settingsFrames > settings.maxSettingsPerWindow;
            case PING:
                return ++pings > settings.maxPingsPerWindow;
            case EMPTY:
                return ++empty > settings.maxEmptyDataPerWindow;
            default:
                throw new IllegalArgumentException("flood kind " + kind);
        }
    }
}
