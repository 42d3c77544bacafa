package dev.peregrine;

import dev.peregrine.compress.Coding;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.Deflater;

/**
 * Response compression settings ({@link Server.Builder#compression(Compression)}): gzip and deflate
 * on {@code java.util.zip}, br through Brotli4j and zstd through zstd-jni when the application has
 * them (found at run time, {@link dev.peregrine.compress.NativeCodecs}); one encoder per coding per
 * loop reused for every response. A response is compressed when the client accepts a coding
 * (Accept-Encoding q-values, RFC 9110 §12.5.3; on a tie the earlier of {@link #codings()}), its type
 * is one of {@code types}, and it is not a 1xx, 204, 206 or 304, a HEAD answer, or already encoded;
 * a body in memory also needs {@code minSize} bytes, a streamed body ({@code res.stream},
 * {@code res.outputStream}) is compressed chunk by chunk with a flush after each. {@code Vary:
 * Accept-Encoding} goes on every response of a compressible type. Immutable.
 */
public final class Compression {
    final int minSize;
    final int level;
    final List<String> types;
    final List<Coding> codings;
    final int brotliQuality;
    final int zstdLevel;

    private Compression(Builder b) {
        this.minSize = b.minSize;
        this.level = b.level;
        this.types = b.types.stream().map(t -> t.toLowerCase(Locale.ROOT)).collect(java.util.stream.Collectors.toUnmodifiableList());
        this.codings = b.codings != null ? b.codings : available(DEFAULT_ORDER);
        this.brotliQuality = b.brotliQuality;
        this.zstdLevel = b.zstdLevel;
    }

    private static final List<Coding> DEFAULT_ORDER = List.of(Coding.BR, Coding.ZSTD, Coding.GZIP, Coding.DEFLATE);

    private static List<Coding> available(List<Coding> order) {
        List<Coding> list = new ArrayList<>();
        for (Coding c : order) {
            if (c.available()) {
                list.add(c);
            }
        }
        return List.copyOf(list);
    }

    /**
     * The defaults: 1 KiB minimum, deflate level 6, brotli quality 4, zstd level 3, text, JSON,
     * JavaScript, XML and SVG; codings br, zstd (each when its library loads), gzip, deflate.
     */
    public static Compression defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Smallest body compressed, in bytes. */
    public int minSize() {
        return minSize;
    }

    /** Deflate level, 1 (fast) to 9 (small). */
    public int level() {
        return level;
    }

    /** The codings offered, in the server's order of preference (ties between q-values go to the earlier). */
    public List<Coding> codings() {
        return codings;
    }

    /** Brotli quality, 0 to 11. */
    public int brotliQuality() {
        return brotliQuality;
    }

    /** Zstandard level, 1 to 19. */
    public int zstdLevel() {
        return zstdLevel;
    }

    /** Whether a Content-Type is compressible: its media type starts with one of {@code types}. */
    public boolean compressible(CharSequence contentType) {
        if (contentType == null) {
            return false;
        }
        for (int i = 0; i < types.size(); i++) { // no String made: called for every response
            String prefix = types.get(i);
            if (startsWithIgnoreCase(contentType, prefix)) {
                return true;
            }
        }
        return false;
    }

    private static boolean startsWithIgnoreCase(CharSequence s, String lowerPrefix) {
        if (s.length() < lowerPrefix.length()) {
            return false;
        }
        for (int i = 0; i < lowerPrefix.length(); i++) {
            char c = s.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            if (c != lowerPrefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Settings; not thread-safe. */
    public static final class Builder {
        private int minSize = 1024;
        private int level = 6;
        private List<String> types = List.of("text/", "application/json", "application/javascript", "application/xml",
                "image/svg+xml", "application/problem+json");
        private List<Coding> codings;
        private int brotliQuality = 4;
        private int zstdLevel = 3;

        private Builder() {
        }

        public Builder minSize(int bytes) {
            if (bytes < 0) {
                throw new IllegalArgumentException("minSize must not be negative: " + bytes);
            }
            this.minSize = bytes;
            return this;
        }

        public Builder level(int level) {
            if (level < Deflater.BEST_SPEED || level > Deflater.BEST_COMPRESSION) {
                throw new IllegalArgumentException("level must be 1 to 9: " + level);
            }
            this.level = level;
            return this;
        }

        /**
         * The codings to offer, in order of preference ({@code "br"}, {@code "zstd"}, {@code "gzip"},
         * {@code "deflate"}), replacing the default (every available one, in that order).
         *
         * @throws IllegalArgumentException for an unknown token, or br/zstd when its library is not on
         *     the class path or its native code does not load here
         */
        public Builder codings(String... tokens) {
            List<Coding> list = new ArrayList<>();
            for (String t : tokens) {
                Coding c = Coding.of(t);
                if (c == null) {
                    throw new IllegalArgumentException("unknown coding: " + t + " (br, zstd, gzip or deflate)");
                }
                if (!c.available()) {
                    throw new IllegalArgumentException(t + " needs " + (c == Coding.BR
                            ? "com.aayushatharva.brotli4j:brotli4j and its native jar" : "com.github.luben:zstd-jni")
                            + " on the class path, with native code that loads here");
                }
                if (!list.contains(c)) {
                    list.add(c);
                }
            }
            if (list.isEmpty()) {
                throw new IllegalArgumentException("no coding given");
            }
            this.codings = List.copyOf(list);
            return this;
        }

        /** Brotli quality for on-the-fly responses, 0 (fast) to 11 (small); default 4. */
        public Builder brotliQuality(int quality) {
            if (quality < 0 || quality > 11) {
                throw new IllegalArgumentException("brotliQuality must be 0 to 11: " + quality);
            }
            this.brotliQuality = quality;
            return this;
        }

        /** Zstandard level, 1 (fast) to 19 (small); default 3. */
        public Builder zstdLevel(int level) {
            if (level < 1 || level > 19) {
                throw new IllegalArgumentException("zstdLevel must be 1 to 19: " + level);
            }
            this.zstdLevel = level;
            return this;
        }

        /** Media type prefixes to compress ({@code "text/"}, {@code "application/json"}...), replacing the defaults. */
        public Builder types(String... prefixes) {
            this.types = List.of(prefixes);
            return this;
        }

        public Compression build() {
            return new Compression(this);
        }
    }
}
