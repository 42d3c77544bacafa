package dev.peregrine;

import java.util.List;
import java.util.Locale;
import java.util.zip.Deflater;

/**
 * Response compression settings ({@link Server.Builder#compression(Compression)}): gzip and deflate
 * on {@code java.util.zip}, one compressor per loop reused for every response. A response is
 * compressed when the client accepts a coding (Accept-Encoding q-values, RFC 9110 §12.5.3), its body
 * is in memory and at least {@code minSize} bytes, its type is one of {@code types}, and it is not a
 * 1xx, 204, 206 or 304, a HEAD answer, or already encoded. {@code Vary: Accept-Encoding} goes on
 * every response of a compressible type. Immutable.
 */
public final class Compression {
    final int minSize;
    final int level;
    final List<String> types;

    private Compression(Builder b) {
        this.minSize = b.minSize;
        this.level = b.level;
        this.types = List.copyOf(b.types);
    }

    /** The defaults: 1 KiB minimum, level 6, text, JSON, JavaScript, XML and SVG. */
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

    /** Whether a Content-Type is compressible: its media type starts with one of {@code types}. */
    public boolean compressible(CharSequence contentType) {
        if (contentType == null) {
            return false;
        }
        String t = contentType.toString().toLowerCase(Locale.ROOT);
        for (String prefix : types) {
            if (t.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** Settings; not thread-safe. */
    public static final class Builder {
        private int minSize = 1024;
        private int level = 6;
        private List<String> types = List.of("text/", "application/json", "application/javascript", "application/xml",
                "image/svg+xml", "application/problem+json");

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
