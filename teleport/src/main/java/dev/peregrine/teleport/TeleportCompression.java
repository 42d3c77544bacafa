package dev.peregrine.teleport;

/**
 * The compression a side writes, stated in its hello ({@link Handshake}): {@link #NONE},
 * {@link #DEFLATE} ({@code DeflateStream}) or {@link #LZ4} ({@code Lz4Stream}); docs/teleport.md
 * specifies each coding.
 */
public enum TeleportCompression {
    NONE(0), DEFLATE(1), LZ4(2);

    private final int code;

    TeleportCompression(int code) {
        this.code = code;
    }

    /** The byte in the hello. */
    public int code() {
        return code;
    }

    /** The compression of hello byte {@code code}, or null. */
    public static TeleportCompression ofCode(int code) {
        for (TeleportCompression c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        return null;
    }
}
