package dev.peregrine;

import java.time.Duration;

/**
 * The limits of the server's HTTP/2 (docs/http2.md, "Defences"), each with a safe default, for
 * {@link Server.Builder#http2(Http2Options)}. Every limit guards against one attack and each violation
 * is counted in {@link Metrics} ({@code http2Defence(kind)}):
 * <pre>
 *  builder method            default   on violation                          against
 *  maxConcurrentStreams      100       RST_STREAM REFUSED_STREAM (advertised) more streams than allowed
 *  initialStreamWindow       256 KiB   (SETTINGS_INITIAL_WINDOW_SIZE)         -
 *  connectionWindow          1 MiB     (WINDOW_UPDATE on stream 0 at start)   -
 *  headerTableSize           4096      COMPRESSION_ERROR past it              HPACK table bomb
 *  maxHeaderListSize         16 KiB    431 on the stream                      HPACK/Huffman bomb
 *  maxHeaderBlockBytes       64 KiB    GOAWAY ENHANCE_YOUR_CALM               CONTINUATION flood
 *  maxHeaderBlockFrames      32        GOAWAY ENHANCE_YOUR_CALM               CONTINUATION flood
 *  maxClientResets           200       GOAWAY ENHANCE_YOUR_CALM               rapid reset (CVE-2023-44487)
 *  maxServerResets           200       GOAWAY ENHANCE_YOUR_CALM               MadeYouReset (CVE-2025-8671)
 *  maxSettingsFrames         100       GOAWAY ENHANCE_YOUR_CALM               SETTINGS flood (CVE-2019-9515)
 *  maxPings                  100       GOAWAY ENHANCE_YOUR_CALM               PING flood (CVE-2019-9512)
 *  maxEmptyFrames            100       GOAWAY ENHANCE_YOUR_CALM               empty frames (CVE-2019-9518)
 *  floodWindow               10 s      the window the five counts above are taken over
 *  stalledWriteTimeout       30 s      GOAWAY ENHANCE_YOUR_CALM, close        zero window held open
 * </pre>
 * <pre>{@code
 * Server.builder().http2(Http2Options.builder().maxConcurrentStreams(250).build())
 * }</pre>
 * The five counts are at most 65,535 per window, the window at most a day. A value out of range throws
 * {@link IllegalArgumentException} at the builder call that sets it.
 * Immutable. Thread: any (the builder: one thread).
 */
public final class Http2Options {
    /** Every limit at its default. */
    public static final Http2Options DEFAULTS = builder().build();

    private final Builder b;

    private Http2Options(Builder b) {
        this.b = b;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The most streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). */
    public int maxConcurrentStreams() {
        return b.maxConcurrentStreams;
    }

    /** Each stream's receive window in bytes (SETTINGS_INITIAL_WINDOW_SIZE). */
    public int initialStreamWindow() {
        return b.initialStreamWindow;
    }

    /** The connection's receive window in bytes. */
    public int connectionWindow() {
        return b.connectionWindow;
    }

    /** The HPACK dynamic table size in bytes (SETTINGS_HEADER_TABLE_SIZE). */
    public int headerTableSize() {
        return b.headerTableSize;
    }

    /** The largest decoded header list in bytes (SETTINGS_MAX_HEADER_LIST_SIZE). */
    public int maxHeaderListSize() {
        return b.maxHeaderListSize;
    }

    /** The largest header block (HEADERS and its CONTINUATIONs) in bytes. */
    public int maxHeaderBlockBytes() {
        return b.maxHeaderBlockBytes;
    }

    /** The most frames one header block may take. */
    public int maxHeaderBlockFrames() {
        return b.maxHeaderBlockFrames;
    }

    /** The most RST_STREAM frames a client may send per flood window. */
    public int maxClientResets() {
        return b.maxClientResets;
    }

    /** The most resets a client may provoke per flood window. */
    public int maxServerResets() {
        return b.maxServerResets;
    }

    /** The most SETTINGS frames per flood window. */
    public int maxSettingsFrames() {
        return b.maxSettingsFrames;
    }

    /** The most PING frames per flood window. */
    public int maxPings() {
        return b.maxPings;
    }

    /** The most empty DATA/HEADERS frames per flood window. */
    public int maxEmptyFrames() {
        return b.maxEmptyFrames;
    }

    /** The window the flood counts are taken over, in ms. */
    public long floodWindowMillis() {
        return b.floodWindowMillis;
    }

    /** How long a zero window may hold output back, in ms. */
    public long stalledWriteMillis() {
        return b.stalledWriteMillis;
    }

    /** Builds {@link Http2Options}; each method checks its value at once. */
    public static final class Builder {
        private int maxConcurrentStreams = 100;
        private int initialStreamWindow = 256 * 1024;
        private int connectionWindow = 1 << 20;
        private int headerTableSize = 4096;
        private int maxHeaderListSize = 16 * 1024;
        private int maxHeaderBlockBytes = 64 * 1024;
        private int maxHeaderBlockFrames = 32;
        private int maxClientResets = 200;
        private int maxServerResets = 200;
        private int maxSettingsFrames = 100;
        private int maxPings = 100;
        private int maxEmptyFrames = 100;
        private long floodWindowMillis = 10_000;
        private long stalledWriteMillis = 30_000;

        /** The most of each frame kind per flood window: a connection counts them in 16 bits (issue 28). */
        private static final int MAX_PER_WINDOW = 65_535;
        private static final long MAX_FLOOD_WINDOW_MILLIS = 86_400_000;

        private Builder() {
        }

        private static int check(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ": " + value);
            }
            return value;
        }

        private static long millis(String name, Duration d) {
            if (d == null || d.toMillis() < 1) {
                throw new IllegalArgumentException(name + " must be at least 1 ms: " + d);
            }
            return d.toMillis();
        }

        /** Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS); more are refused. */
        public Builder maxConcurrentStreams(int n) {
            maxConcurrentStreams = check("maxConcurrentStreams", n, 1, 1 << 16);
            return this;
        }

        /** Bytes a client may send on one stream before our WINDOW_UPDATE (SETTINGS_INITIAL_WINDOW_SIZE). */
        public Builder initialStreamWindow(int bytes) {
            initialStreamWindow = check("initialStreamWindow", bytes, 1024, Integer.MAX_VALUE);
            return this;
        }

        /** Bytes a client may send on the connection before our WINDOW_UPDATE. */
        public Builder connectionWindow(int bytes) {
            connectionWindow = check("connectionWindow", bytes, 65_535, Integer.MAX_VALUE);
            return this;
        }

        /** The HPACK dynamic table a client may use (SETTINGS_HEADER_TABLE_SIZE). */
        public Builder headerTableSize(int bytes) {
            headerTableSize = check("headerTableSize", bytes, 0, 1 << 20);
            return this;
        }

        /** The decoded size of a request's fields (SETTINGS_MAX_HEADER_LIST_SIZE); 431 beyond. */
        public Builder maxHeaderListSize(int bytes) {
            maxHeaderListSize = check("maxHeaderListSize", bytes, 64, 65_535);
            return this;
        }

        /** The encoded size of one field block (HEADERS and its CONTINUATIONs). */
        public Builder maxHeaderBlockBytes(int bytes) {
            maxHeaderBlockBytes = check("maxHeaderBlockBytes", bytes, 1024, 1 << 24);
            return this;
        }

        /** The frames of one field block (HEADERS and its CONTINUATIONs). */
        public Builder maxHeaderBlockFrames(int n) {
            maxHeaderBlockFrames = check("maxHeaderBlockFrames", n, 1, 1 << 16);
            return this;
        }

        /** RST_STREAM frames a client may send per {@link #floodWindow}. */
        public Builder maxClientResets(int n) {
            maxClientResets = check("maxClientResets", n, 1, MAX_PER_WINDOW);
            return this;
        }

        /** Streams the server may reset for a client's errors per {@link #floodWindow}. */
        public Builder maxServerResets(int n) {
            maxServerResets = check("maxServerResets", n, 1, MAX_PER_WINDOW);
            return this;
        }

        /** SETTINGS frames a client may send per {@link #floodWindow}. */
        public Builder maxSettingsFrames(int n) {
            maxSettingsFrames = check("maxSettingsFrames", n, 1, MAX_PER_WINDOW);
            return this;
        }

        /** PING frames a client may send per {@link #floodWindow}. */
        public Builder maxPings(int n) {
            maxPings = check("maxPings", n, 1, MAX_PER_WINDOW);
            return this;
        }

        /** Empty DATA (without END_STREAM) and empty CONTINUATION frames per {@link #floodWindow}. */
        public Builder maxEmptyFrames(int n) {
            maxEmptyFrames = check("maxEmptyFrames", n, 1, MAX_PER_WINDOW);
            return this;
        }

        /** The window the per-window counts are taken over (at most a day). */
        public Builder floodWindow(Duration window) {
            floodWindowMillis = millis("floodWindow", window);
            if (floodWindowMillis > MAX_FLOOD_WINDOW_MILLIS) {
                throw new IllegalArgumentException("floodWindow must be at most a day: " + window);
            }
            return this;
        }

        /** How long our DATA may wait for a client's window to open before the connection is cut. */
        public Builder stalledWriteTimeout(Duration timeout) {
            stalledWriteMillis = millis("stalledWriteTimeout", timeout);
            return this;
        }

        public Http2Options build() {
            Builder copy = new Builder();
            copy.copyFrom(this);
            return new Http2Options(copy);
        }

        private void copyFrom(Builder o) {
            maxConcurrentStreams = o.maxConcurrentStreams;
            initialStreamWindow = o.initialStreamWindow;
            connectionWindow = o.connectionWindow;
            headerTableSize = o.headerTableSize;
            maxHeaderListSize = o.maxHeaderListSize;
            maxHeaderBlockBytes = o.maxHeaderBlockBytes;
            maxHeaderBlockFrames = o.maxHeaderBlockFrames;
            maxClientResets = o.maxClientResets;
            maxServerResets = o.maxServerResets;
            maxSettingsFrames = o.maxSettingsFrames;
            maxPings = o.maxPings;
            maxEmptyFrames = o.maxEmptyFrames;
            floodWindowMillis = o.floodWindowMillis;
            stalledWriteMillis = o.stalledWriteMillis;
        }
    }
}
