package dev.peregrine.compress;

/**
 * A content coding a response may be compressed with, by its token in Accept-Encoding and
 * Content-Encoding (RFC 9110 §8.4.1; {@code zstd}: RFC 8878 §7.2).
 *
 * <p>Thread: any.
 */
public enum Coding {
    /** RFC 1952, {@code java.util.zip}: always there. */
    GZIP("gzip"),
    /** The zlib format of RFC 1950 (RFC 9110 §8.4.1.2), {@code java.util.zip}: always there. */
    DEFLATE("deflate"),
    /** RFC 7932, through Brotli4j when it and its native library load. */
    BR("br"),
    /** RFC 8878, through zstd-jni when it loads. */
    ZSTD("zstd");

    private final String token;

    Coding(String token) {
        this.token = token;
    }

    /** The token, lower case, as it appears in Content-Encoding. */
    public String token() {
        return token;
    }

    /** Whether this coding can be used here: gzip and deflate always; br and zstd when their library loads. */
    public boolean available() {
        switch (this) {
            case BR:
                return NativeCodecs.brotli();
            case ZSTD:
                return NativeCodecs.zstd();
            default:
                return true;
        }
    }

    /** The coding named {@code token} (case-insensitive), or null. */
    public static Coding of(String token) {
        for (Coding c : values()) {
            if (c.token.equalsIgnoreCase(token)) {
                return c;
            }
        }
        return null;
    }
}
