package dev.peregrine.h2;

import dev.peregrine.loop.LoopContext;

import java.util.function.Function;

/**
 * The limits of the HTTP/2 server, each with a safe default, and the defences they hold (each
 * violation is counted in {@link Http2Counters}):
 * <pre>
 *  setting                 default   on violation                                    against
 *  maxConcurrentStreams    100       RST_STREAM REFUSED_STREAM (SETTINGS advertises) more streams than allowed
 *  initialStreamWindow     256 KiB   (our SETTINGS_INITIAL_WINDOW_SIZE)              -
 *  connectionWindow        1 MiB     (WINDOW_UPDATE on stream 0 at start)             -
 *  headerTableSize         4096      COMPRESSION_ERROR for a larger size update      HPACK table bomb
 *  maxHeaderListSize       16 KiB    431 on the stream (fields decoded, not kept)    HPACK/Huffman bomb
 *  maxHeaderBlockBytes     64 KiB    GOAWAY ENHANCE_YOUR_CALM                         CONTINUATION flood (2024)
 *  maxHeaderBlockFrames    32        GOAWAY ENHANCE_YOUR_CALM                         CONTINUATION flood (2024)
 *  maxResetsPerWindow      200       GOAWAY ENHANCE_YOUR_CALM                         rapid reset (CVE-2023-44487)
 *  maxServerResetsPerWindow 200      GOAWAY ENHANCE_YOUR_CALM                         MadeYouReset (CVE-2025-8671)
 *  maxSettingsPerWindow    100       GOAWAY ENHANCE_YOUR_CALM                         SETTINGS flood (CVE-2019-9515)
 *  maxPingsPerWindow       100       GOAWAY ENHANCE_YOUR_CALM                         PING flood (CVE-2019-9512)
 *  maxEmptyDataPerWindow   100       GOAWAY ENHANCE_YOUR_CALM                         empty frames (CVE-2019-9518)
 *  floodWindowMillis       10 s      the window the per-window counts are taken over
 *  stalledWriteMillis      30 s      GOAWAY ENHANCE_YOUR_CALM, close                  zero window held open (slow read)
 * </pre>
 * A client's RST_STREAM counts towards {@code maxResetsPerWindow}; each stream error the server
 * itself answers with RST_STREAM (what a MadeYouReset client provokes with bad frames on live
 * streams) towards {@code maxServerResetsPerWindow}. Immutable. Thread: any.
 */
public final class Http2Settings {
    public static final Http2Settings DEFAULTS = new Http2Settings(100, 256 * 1024, 1 << 20, 4096, 16 * 1024, 64 * 1024, 32,
            200, 200, 100, 100, 100, 10_000, 30_000);

    final int maxConcurrentStreams;
    final int initialStreamWindow;
    final int connectionWindow;
    final int headerTableSize;
    final int maxHeaderListSize;
    final int maxHeaderBlockBytes;
    final int maxHeaderBlockFrames;
    final int maxResetsPerWindow;
    final int maxServerResetsPerWindow;
    final int maxSettingsPerWindow;
    final int maxPingsPerWindow;
    final int maxEmptyDataPerWindow;
    final long floodWindowMillis;
    final long stalledWriteMillis;

    /** The connection layer's form of the API's {@link dev.peregrine.Http2Options} (checked there, value by value). */
    public static Http2Settings of(dev.peregrine.Http2Options o) {
        return new Http2Settings(o.maxConcurrentStreams(), o.initialStreamWindow(), o.connectionWindow(),
                o.headerTableSize(), o.maxHeaderListSize(), o.maxHeaderBlockBytes(), o.maxHeaderBlockFrames(),
                o.maxClientResets(), o.maxServerResets(), o.maxSettingsFrames(), o.maxPings(), o.maxEmptyFrames(),
                o.floodWindowMillis(), o.stalledWriteMillis());
    }

    /**
     * How a connection finds its loop's {@link StreamDispatch} when it opens: null in settings made here,
     * bound by {@link Http2Server} ({@link #withDispatch}) so that a connection holds one reference for both
     * (issue 28, an idle connection's bytes).
     */
    final Function<LoopContext, StreamDispatch> dispatchOf;

    public Http2Settings(int maxConcurrentStreams, int initialStreamWindow, int connectionWindow, int headerTableSize,
                         int maxHeaderListSize, int maxHeaderBlockBytes, int maxHeaderBlockFrames, int maxResetsPerWindow,
                         int maxServerResetsPerWindow, int maxSettingsPerWindow, int maxPingsPerWindow,
                         int maxEmptyDataPerWindow, long floodWindowMillis, long stalledWriteMillis) {
        if (maxConcurrentStreams < 1 || initialStreamWindow < 1 || connectionWindow < 65_535 || headerTableSize < 0
                || maxHeaderListSize < 64 || maxHeaderListSize > 65_535 || maxHeaderBlockBytes < 1024
                || maxHeaderBlockFrames < 1 || floodWindowMillis < 1 || floodWindowMillis > 86_400_000 || stalledWriteMillis < 1
                || Math.max(Math.max(maxResetsPerWindow, maxServerResetsPerWindow), Math.max(Math.max(maxSettingsPerWindow,
                        maxPingsPerWindow), maxEmptyDataPerWindow)) > 65_535) { // FloodGuard counts each in a char
            throw new IllegalArgumentException("HTTP/2 setting out of range");
        }
        this.maxConcurrentStreams = maxConcurrentStreams;
        this.initialStreamWindow = initialStreamWindow;
        this.connectionWindow = connectionWindow;
        this.headerTableSize = headerTableSize;
        this.maxHeaderListSize = maxHeaderListSize;
        this.maxHeaderBlockBytes = maxHeaderBlockBytes;
        this.maxHeaderBlockFrames = maxHeaderBlockFrames;
        this.maxResetsPerWindow = maxResetsPerWindow;
        this.maxServerResetsPerWindow = maxServerResetsPerWindow;
        this.maxSettingsPerWindow = maxSettingsPerWindow;
        this.maxPingsPerWindow = maxPingsPerWindow;
        this.maxEmptyDataPerWindow = maxEmptyDataPerWindow;
        this.floodWindowMillis = floodWindowMillis;
        this.stalledWriteMillis = stalledWriteMillis;
        this.dispatchOf = null;
    }

    private Http2Settings(Http2Settings s, Function<LoopContext, StreamDispatch> dispatchOf) {
        this.maxConcurrentStreams = s.maxConcurrentStreams;
        this.initialStreamWindow = s.initialStreamWindow;
        this.connectionWindow = s.connectionWindow;
        this.headerTableSize = s.headerTableSize;
        this.maxHeaderListSize = s.maxHeaderListSize;
        this.maxHeaderBlockBytes = s.maxHeaderBlockBytes;
        this.maxHeaderBlockFrames = s.maxHeaderBlockFrames;
        this.maxResetsPerWindow = s.maxResetsPerWindow;
        this.maxServerResetsPerWindow = s.maxServerResetsPerWindow;
        this.maxSettingsPerWindow = s.maxSettingsPerWindow;
        this.maxPingsPerWindow = s.maxPingsPerWindow;
        this.maxEmptyDataPerWindow = s.maxEmptyDataPerWindow;
        this.floodWindowMillis = s.floodWindowMillis;
        this.stalledWriteMillis = s.stalledWriteMillis;
        this.dispatchOf = dispatchOf;
    }

    /** These settings with {@code dispatchOf} bound ({@link #dispatchOf}). */
    Http2Settings withDispatch(Function<LoopContext, StreamDispatch> dispatchOf) {
        return new Http2Settings(this, dispatchOf);
    }
}
