package dev.peregrine.h2.frame;

/**
 * Frame types, flags, error codes and settings identifiers of RFC 9113 (§6, §7, §6.5.2), as ints.
 * Thread: any (constants only).
 */
public final class Frames {
    /** Every frame begins with this many bytes (§4.1). */
    public static final int HEADER_LENGTH = 9;
    /** The initial and smallest SETTINGS_MAX_FRAME_SIZE (§6.5.2). */
    public static final int DEFAULT_MAX_FRAME_SIZE = 16_384;
    /** The largest SETTINGS_MAX_FRAME_SIZE (2^24 - 1). */
    public static final int MAX_MAX_FRAME_SIZE = (1 << 24) - 1;
    /** The initial flow-control window of a connection and of each stream (§6.9.2). */
    public static final int DEFAULT_WINDOW = 65_535;
    /** The initial SETTINGS_HEADER_TABLE_SIZE (§6.5.2). */
    public static final int DEFAULT_HEADER_TABLE_SIZE = 4_096;
    /** The largest flow-control window (2^31 - 1, §6.9.1). */
    public static final int MAX_WINDOW = Integer.MAX_VALUE;

    public static final int DATA = 0x0;
    public static final int HEADERS = 0x1;
    public static final int PRIORITY = 0x2;
    public static final int RST_STREAM = 0x3;
    public static final int SETTINGS = 0x4;
    public static final int PUSH_PROMISE = 0x5;
    public static final int PING = 0x6;
    public static final int GOAWAY = 0x7;
    public static final int WINDOW_UPDATE = 0x8;
    public static final int CONTINUATION = 0x9;

    public static final int FLAG_END_STREAM = 0x1;
    /** SETTINGS and PING. */
    public static final int FLAG_ACK = 0x1;
    public static final int FLAG_END_HEADERS = 0x4;
    public static final int FLAG_PADDED = 0x8;
    public static final int FLAG_PRIORITY = 0x20;

    // Error codes (§7).
    public static final int NO_ERROR = 0x0;
    public static final int PROTOCOL_ERROR = 0x1;
    public static final int INTERNAL_ERROR = 0x2;
    public static final int FLOW_CONTROL_ERROR = 0x3;
    public static final int SETTINGS_TIMEOUT = 0x4;
    public static final int STREAM_CLOSED = 0x5;
    public static final int FRAME_SIZE_ERROR = 0x6;
    public static final int REFUSED_STREAM = 0x7;
    public static final int CANCEL = 0x8;
    public static final int COMPRESSION_ERROR = 0x9;
    public static final int CONNECT_ERROR = 0xa;
    public static final int ENHANCE_YOUR_CALM = 0xb;
    public static final int INADEQUATE_SECURITY = 0xc;
    public static final int HTTP_1_1_REQUIRED = 0xd;

    // Settings identifiers (§6.5.2).
    public static final int SETTINGS_HEADER_TABLE_SIZE = 0x1;
    public static final int SETTINGS_ENABLE_PUSH = 0x2;
    public static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3;
    public static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
    public static final int SETTINGS_MAX_FRAME_SIZE = 0x5;
    public static final int SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

    private Frames() {
    }

    /** The name of error {@code code} for logs and tests, or its hex form. */
    public static String errorName(int code) {
        String[] names = {"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
            "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR",
            "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"};
        return code >= 0 && code < names.length ? names[code] : "0x" + Integer.toHexString(code);
    }
}
