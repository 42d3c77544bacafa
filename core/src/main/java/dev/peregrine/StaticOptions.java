package dev.peregrine;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * How {@link Server.Builder#staticFiles(String, java.nio.file.Path, StaticOptions)} serves a directory. Immutable; made with {@link #builder()}.
 * <pre>{@code
 * StaticOptions.builder().cacheControl("public, max-age=3600").mediaType("wasm", "application/wasm").build()
 * }</pre>
 */
public final class StaticOptions {
    private final String index;
    private final String cacheControl;
    private final boolean precompressed;
    private final boolean allowHidden;
    private final boolean followSymlinksOut;
    private final int maxRanges;
    private final int openFileCache;
    private final long cacheValidMillis;
    private final Map<String, String> mediaTypes;
    private final Compression compression;

    private StaticOptions(Builder b) {
        index = b.index;
        cacheControl = b.cacheControl;
        precompressed = b.precompressed;
        compression = b.compression;
        allowHidden = b.allowHidden;
        followSymlinksOut = b.followSymlinksOut;
        maxRanges = b.maxRanges;
        openFileCache = b.openFileCache;
        cacheValidMillis = b.cacheValidMillis;
        mediaTypes = Map.copyOf(b.mediaTypes);
    }

    /**
     * The defaults: {@code index.html}, no Cache-Control, precompressed siblings on, hidden files and
     * links out refused, 256 open files cached.
     */
    public static StaticOptions defaults() {
        return builder().build();
    }

    /** The index file served for a directory, or null. */
    public String index() {
        return index;
    }

    /** The Cache-Control value sent, or null: none. */
    public String cacheControl() {
        return cacheControl;
    }

    /** Whether precompressed siblings ({@code .br}, {@code .zst}, {@code .gz}) are served. */
    public boolean precompressed() {
        return precompressed;
    }

    /** Whether hidden files (a name starting with {@code .}) are served. */
    public boolean allowHidden() {
        return allowHidden;
    }

    /** Whether links that lead out of the directory are followed. */
    public boolean followSymlinksOut() {
        return followSymlinksOut;
    }

    /** The most ranges one request may ask for. */
    public int maxRanges() {
        return maxRanges;
    }

    /** How many open files are cached (0: none). */
    public int openFileCache() {
        return openFileCache;
    }

    /** How long a cached file is trusted without a stat, in ms. */
    public long cacheValidMillis() {
        return cacheValidMillis;
    }

    /** Media types by lower-case extension, beside the built-in ones. */
    public Map<String, String> mediaTypes() {
        return mediaTypes;
    }

    /** How text files are compressed on the fly, or null: not. */
    public Compression compression() {
        return compression;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings; not thread-safe. */
    public static final class Builder {
        private String index = "index.html";
        private String cacheControl;
        private boolean precompressed = true;
        private boolean allowHidden;
        private boolean followSymlinksOut;
        private int maxRanges = 16;
        private int openFileCache = 256;
        private long cacheValidMillis;
        private final Map<String, String> mediaTypes = new HashMap<>();
        private Compression compression = Compression.defaults();

        private Builder() {
        }

        /** The file served for a directory (default {@code index.html}); null for none (404). */
        public Builder index(String fileName) {
            this.index = fileName;
            return this;
        }

        /**
         * The {@code Cache-Control} value of every file response; null (the default) for none.
         *
         * @throws IllegalArgumentException for a control character (CR, LF, NUL...) or non-ASCII, as
         *         {@code Response.header} would refuse it: the value is written into every answer as it is
         */
        public Builder cacheControl(String value) {
            for (int i = 0; value != null && i < value.length(); i++) {
                char c = value.charAt(i);
                if (c > 0x7E || !dev.peregrine.buffer.HttpTokens.FIELD_VALUE[c]) {
                    throw new IllegalArgumentException("invalid character in cacheControl at index " + i);
                }
            }
            this.cacheControl = value;
            return this;
        }

        /** Whether {@code .br}, {@code .zst} and {@code .gz} siblings are served to clients that accept them (default on). */
        public Builder precompressed(boolean on) {
            this.precompressed = on;
            return this;
        }

        /**
         * How text files are compressed for clients that accept a coding and have no precompressed sibling
         * (default {@link Compression#defaults()}: br, zstd where their libraries load, gzip and
         * deflate, for text, JSON, JavaScript, XML and SVG of at least 1 KiB); null serves every file as it is
         * on disk. Each file version is compressed once per coding and the bytes kept with the open file
         * (up to 8 MiB per file and 64 MiB per directory; larger files leave uncompressed; files up to 64 KiB
         * are compressed by the first request, larger ones in the background while identity is sent). Needs
         * the open-file cache ({@link #openFileCache} above 0). Independent of the server's
         * {@code compression(...)}, which covers bodies in memory.
         */
        public Builder compression(Compression compression) {
            this.compression = compression;
            return this;
        }

        /** Whether files and directories whose name starts with a dot are served (default: 404). */
        public Builder allowHidden(boolean on) {
            this.allowHidden = on;
            return this;
        }

        /** Whether symbolic links may lead outside the root (default: 404). */
        public Builder followSymlinksOut(boolean on) {
            this.followSymlinksOut = on;
            return this;
        }

        /** Most ranges honoured in one request (default 16); more, or overlapping ones, get the whole file. */
        public Builder maxRanges(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxRanges must be at least 1: " + n);
            }
            this.maxRanges = n;
            return this;
        }

        /**
         * Most files kept open between requests (default 256; 0 turns the cache off): least recently
         * used out, each validated by one {@code stat} per request (see {@link #cacheValid}) and closed when
         * evicted or when the server stops. Each counts against the process's open-file limit.
         */
        public Builder openFileCache(int files) {
            if (files < 0) {
                throw new IllegalArgumentException("openFileCache must not be negative: " + files);
            }
            this.openFileCache = files;
            return this;
        }

        /**
         * How long a cached file is trusted without the {@code stat} that validates it (default 0: validated
         * on every request, so a change on disk shows at once). Like nginx's {@code open_file_cache_valid}
         * (60 s there): for files replaced only by deployments, a second or more saves a system call and
         * its allocations per request; a file changed meanwhile is served as it was for up to this long.
         */
        public Builder cacheValid(java.time.Duration validity) {
            if (validity.isNegative()) {
                throw new IllegalArgumentException("cacheValid must not be negative: " + validity);
            }
            this.cacheValidMillis = validity.toMillis();
            return this;
        }

        /** The Content-Type of files ending in {@code .extension}, over the built-in table. */
        public Builder mediaType(String extension, String type) {
            mediaTypes.put(extension.toLowerCase(Locale.ROOT), type);
            return this;
        }

        public StaticOptions build() {
            return new StaticOptions(this);
        }
    }
}
