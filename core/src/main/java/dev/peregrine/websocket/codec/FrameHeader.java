package dev.peregrine.websocket.codec;

import java.nio.ByteBuffer;

/**
 * One WebSocket frame header (RFC 6455 §5.2), read in place from a buffer: a flyweight that one
 * connection reuses for every frame. {@link #parse} reads the header only; the payload stays where it
 * is, to be unmasked in place ({@link Masking}) and consumed as it arrives.
 * <pre>
 *   byte 0          byte 1          bytes 2..               then                  then
 *   +-+-+-+-+-------+-+-------------+---------------------+---------------------+------------------
 *   |F|R|R|R| opcode|M| payload len | extended length:    | masking key:        | payload data
 *   |I|S|S|S|  (4)  |A|     (7)     |  len 126: 16 bits   |  4 bytes if MASK    | (masked by the
 *   |N|V|V|V|       |S|             |  len 127: 64 bits   |  (always, from a    |  client)
 *   | |1|2|3|       |K|             |  (network order,    |  client, §5.3)      |
 *   +-+-+-+-+-------+-+-------------+  MSB 0), else none  +---------------------+------------------
 *   header length: 2, 4 or 10 bytes, plus 4 when masked (so 2..14)
 * </pre>
 * Opcodes: 0 continuation, 1 text, 2 binary, 8 close, 9 ping, 10 pong; 3-7 and 11-15 reserved.
 * The parser checks only what the bytes themselves make impossible (a 64-bit length with its top
 * bit set, a length not in its minimal form is allowed, as §5.2 asks nothing more of a receiver);
 * the protocol rules (masking, reserved bits, control frames) are the caller's, who knows the
 * negotiated extensions.
 *
 * <p>Thread: confined to its owner.
 */
public final class FrameHeader {
    /** {@link #parse}: the header is not complete in the bytes given. */
    public static final int NEED_MORE = -1;
    /** {@link #parse}: a 64-bit payload length with its most significant bit set (§5.2). */
    public static final int BAD_LENGTH = -2;

    public static final int OP_CONTINUATION = 0;
    public static final int OP_TEXT = 1;
    public static final int OP_BINARY = 2;
    public static final int OP_CLOSE = 8;
    public static final int OP_PING = 9;
    public static final int OP_PONG = 10;

    /** The largest header: 2 + 8 (64-bit length) + 4 (mask). */
    public static final int MAX_LENGTH = 14;

    private boolean fin;
    private int rsv;
    private int opcode;
    private boolean masked;
    private long payloadLength;
    /** The masking key's four bytes, as they appear on the wire (first byte in bits 24-31). */
    private int maskKey;

    /**
     * Reads a header from {@code [pos, end)} of {@code buf} (absolute indices, any byte order).
     *
     * @return the header's length in bytes (2 to 14), {@link #NEED_MORE} or {@link #BAD_LENGTH}
     */
    public int parse(ByteBuffer buf, int pos, int end) {
        int avail = end - pos;
        if (avail < 2) {
            return NEED_MORE;
        }
        int b0 = buf.get(pos) & 0xFF;
        int b1 = buf.get(pos + 1) & 0xFF;
        int len7 = b1 & 0x7F;
        boolean mask = (b1 & 0x80) != 0;
        int n = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0) + (mask ? 4 : 0);
        if (avail < n) {
            return NEED_MORE;
        }
        long length;
        int at = pos + 2;
        if (len7 == 126) {
            length = ((buf.get(at) & 0xFF) << 8) | (buf.get(at + 1) & 0xFF);
            at += 2;
        } else if (len7 == 127) {
            length = 0;
            for (int i = 0; i < 8; i++) {
                length = (length << 8) | (buf.get(at + i) & 0xFF);
            }
            if (length < 0) {
                return BAD_LENGTH;
            }
            at += 8;
        } else {
            length = len7;
        }
        int key = 0;
        if (mask) {
            key = ((buf.get(at) & 0xFF) << 24) | ((buf.get(at + 1) & 0xFF) << 16)
                    | ((buf.get(at + 2) & 0xFF) << 8) | (buf.get(at + 3) & 0xFF);
        }
        fin = (b0 & 0x80) != 0;
        rsv = (b0 >>> 4) & 0x7;
        opcode = b0 & 0x0F;
        masked = mask;
        payloadLength = length;
        maskKey = key;
        return n;
    }

    public boolean fin() {
        return fin;
    }

    /** The three reserved bits, RSV1 as 4, RSV2 as 2, RSV3 as 1. */
    public int rsv() {
        return rsv;
    }

    public int opcode() {
        return opcode;
    }

    public boolean masked() {
        return masked;
    }

    /** Payload length in bytes. */
    public long payloadLength() {
        return payloadLength;
    }

    /** The masking key, first wire byte in the top 8 bits; 0 when not masked. */
    public int maskKey() {
        return maskKey;
    }

    /** Whether {@code opcode} is a control frame's (close, ping, pong, or reserved 11-15). */
    public static boolean isControl(int opcode) {
        return (opcode & 0x8) != 0;
    }

    /** Whether {@code opcode} is one RFC 6455 defines (0, 1, 2, 8, 9, 10). */
    public static boolean isKnown(int opcode) {
        return opcode <= OP_BINARY || (opcode >= OP_CLOSE && opcode <= OP_PONG);
    }
}
