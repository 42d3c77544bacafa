package dev.peregrine.teleport;

import java.nio.ByteBuffer;

/**
 * The teleport handshake: each side states what it writes and what it accepts, before any frame.
 * Pure codec; depends on nothing.
 * <pre>
 *   hello (14 bytes, big-endian):
 *   0       4   5   6               10              14
 *   +-------+---+---+---------------+---------------+
 *   | "PGTP"|ver|cmp| maxFrame (u32)| maxInFlight(u32)|
 *   +-------+---+---+---------------+---------------+
 *   "PGTP" = 0x50 0x47 0x54 0x50; ver = 1
 *   cmp:          the compression the sender WRITES (0 none, 1 deflate, 2 lz4)
 *   maxFrame:     the largest frame payload the sender accepts (1024 .. 2^30)
 *   maxInFlight:  requests the sender accepts (server) or will have (client) in flight at once, &gt;= 1
 *
 *   client                                   server
 *     hello  ---------------------------------&gt;
 *            &lt;---------------------------------  0x00, hello      (accepted)
 *            &lt;---------------------------------  reason byte, FIN (refused: see REASON_*)
 *     frames &lt;================================&gt; frames
 * </pre>
 * The server answers only once the client's hello is whole (or wrong: a wrong magic is refused at its
 * first wrong byte); it waits at most 3 s for it. The client sends no frame before the answer. Each side
 * then writes in the compression it stated and reads the other's; each side's frames respect the
 * other's {@code maxFrame}.
 *
 * <p>Thread: any (static, stateless).
 */
public final class Handshake {
    /** Bytes of a hello. */
    public static final int HELLO = 14;
    public static final int VERSION = 1;
    public static final int MIN_FRAME = 1024;
    public static final int MAX_FRAME = 1 << 30;
    /** How long the server waits for the client's hello, and the client for the answer. */
    public static final long TIMEOUT_MILLIS = 3_000;

    /** The answer's first byte when the hello was accepted. */
    public static final int ACCEPTED = 0;
    public static final int REASON_BAD_MAGIC = 1;
    public static final int REASON_BAD_VERSION = 2;
    public static final int REASON_UNSUPPORTED_COMPRESSION = 3;
    public static final int REASON_BAD_LIMITS = 4;
    public static final int REASON_TIMEOUT = 5;
    /** {@link #check}: more bytes are needed. */
    public static final int NEED_MORE = -1;

    private static final byte[] MAGIC = {0x50, 0x47, 0x54, 0x50};

    private Handshake() {
    }

    /** What one side states. */
    public record Hello(int version, TeleportCompression compression, int maxFrame, int maxInFlight) {
    }

    /** Appends {@code h} at {@code out}'s position. */
    public static void write(ByteBuffer out, Hello h) {
        out.put(MAGIC).put((byte) h.version()).put((byte) h.compression().code());
        Frame.putInt(out, h.maxFrame());
        Frame.putInt(out, h.maxInFlight());
    }

    /**
     * Checks the hello starting at {@code pos} (bytes up to {@code end} are there): {@link #ACCEPTED}
     * when whole and acceptable by a reader of {@code readable} compressions, {@link #NEED_MORE}, or a
     * {@code REASON_*}. A wrong magic byte is reported as soon as it is there.
     */
    public static int check(ByteBuffer b, int pos, int end, TeleportCompression... readable) {
        int have = Math.min(end - pos, MAGIC.length);
        for (int i = 0; i < have; i++) {
            if (b.get(pos + i) != MAGIC[i]) {
                return REASON_BAD_MAGIC;
            }
        }
        if (end - pos < HELLO) {
            return NEED_MORE;
        }
        if ((b.get(pos + 4) & 0xFF) != VERSION) {
            return REASON_BAD_VERSION;
        }
        TeleportCompression c = TeleportCompression.ofCode(b.get(pos + 5) & 0xFF);
        boolean ok = false;
        for (TeleportCompression r : readable) {
            ok |= r == c;
        }
        if (c == null || !ok) {
            return REASON_UNSUPPORTED_COMPRESSION;
        }
        long maxFrame = Frame.getInt(b, pos + 6) & 0xFFFF_FFFFL;
        long inFlight = Frame.getInt(b, pos + 10) & 0xFFFF_FFFFL;
        if (maxFrame < MIN_FRAME || maxFrame > MAX_FRAME || inFlight < 1 || inFlight > Integer.MAX_VALUE) {
            return REASON_BAD_LIMITS;
        }
        return ACCEPTED;
    }

    /** The hello at {@code pos}, which {@link #check} accepted. */
    public static Hello read(ByteBuffer b, int pos) {
        return new Hello(b.get(pos + 4) & 0xFF, TeleportCompression.ofCode(b.get(pos + 5) & 0xFF), Frame.getInt(b, pos + 6), Frame.getInt(b, pos + 10));
    }

    /** A reason byte's meaning, for messages. */
    public static String reason(int reason) {
        switch (reason) {
            case REASON_BAD_MAGIC: return "not a teleport peer (bad magic)";
            case REASON_BAD_VERSION: return "unsupported version";
            case REASON_UNSUPPORTED_COMPRESSION: return "unsupported compression";
            case REASON_BAD_LIMITS: return "limits out of range";
            case REASON_TIMEOUT: return "handshake timed out";
            default: return "reason " + reason;
        }
    }
}
