package dev.peregrine.websocket.codec;

import java.nio.ByteBuffer;

/**
 * Checks UTF-8 (RFC 3629 §4) incrementally, as a text message's bytes arrive in pieces: across
 * frames, reads and inflated blocks. It fails at the first byte that cannot continue a valid
 * sequence (RFC 6455 §8.1: "fail fast", close 1007), so a message is refused before it is whole.
 * Overlong forms, surrogates (U+D800..DFFF) and code points past U+10FFFF are invalid.
 * <pre>
 *   state   expects next                        lead byte          goes to
 *   0       a lead byte                         00..7F             0
 *   1       80..BF, then done                   C2..DF             1
 *   2       80..BF, then state 1                E1..EC, EE..EF     2
 *   3       80..BF, then state 2                F1..F3             3
 *   4       A0..BF (no overlong), then 1        E0                 4
 *   5       80..9F (no surrogate), then 1       ED                 5
 *   6       90..BF (no overlong), then 2        F0                 6
 *   7       80..8F (max U+10FFFF), then 2       F4                 7
 *   REJECT  (anything else: 80..C1, F5..FF as a lead, a wrong continuation)
 * </pre>
 * While in state 0, ASCII runs are skipped eight bytes at a time.
 *
 * <p>Thread: confined to its owner.
 */
public final class Utf8Validator {
    private static final int REJECT = -1;
    private static final long HIGH_BITS = 0x8080808080808080L;

    private int state;

    /** Starts a new message. */
    public void reset() {
        state = 0;
    }

    /** Whether the bytes so far end on a character boundary (a text message may end here). */
    public boolean complete() {
        return state == 0;
    }

    /**
     * Feeds bytes {@code [from, to)} of {@code buf}. Returns false at the first invalid byte; after
     * that the validator stays failed until {@link #reset}.
     */
    public boolean feed(ByteBuffer buf, int from, int to) {
        int s = state;
        if (s == REJECT) {
            return false;
        }
        int i = from;
        while (i < to) {
            if (s == 0) {
                while (to - i >= 8 && (buf.getLong(i) & HIGH_BITS) == 0) {
                    i += 8; // eight ASCII bytes: the byte order does not matter for this test
                }
                if (i == to) {
                    break;
                }
            }
            s = next(s, buf.get(i) & 0xFF);
            if (s == REJECT) {
                state = REJECT;
                return false;
            }
            i++;
        }
        state = s;
        return true;
    }

    /** Feeds {@code bytes[from, to)}. */
    public boolean feed(byte[] bytes, int from, int to) {
        int s = state;
        for (int i = from; i < to && s != REJECT; i++) {
            s = next(s, bytes[i] & 0xFF);
        }
        state = s;
        return s != REJECT;
    }

    /** Whether {@code [from, to)} of {@code buf} is, alone, complete valid UTF-8. */
    public static boolean isValid(ByteBuffer buf, int from, int to) {
        Utf8Validator v = new Utf8Validator();
        return v.feed(buf, from, to) && v.complete();
    }

    private static int next(int s, int b) {
        switch (s) {
            case 0:
                if (b < 0x80) {
                    return 0;
                }
                if (b < 0xC2) {
                    return REJECT;
                }
                if (b < 0xE0) {
                    return 1;
                }
                if (b == 0xE0) {
                    return 4;
                }
                if (b == 0xED) {
                    return 5;
                }
                if (b < 0xF0) {
                    return 2;
                }
                if (b == 0xF0) {
                    return 6;
                }
                if (b < 0xF4) {
                    return 3;
                }
                return b == 0xF4 ? 7 : REJECT;
            case 1:
            case 2:
            case 3:
                return (b & 0xC0) == 0x80 ? s - 1 : REJECT;
            case 4:
                return b >= 0xA0 && b <= 0xBF ? 1 : REJECT;
            case 5:
                return b >= 0x80 && b <= 0x9F ? 1 : REJECT;
            case 6:
                return b >= 0x90 && b <= 0xBF ? 2 : REJECT;
            case 7:
                return b >= 0x80 && b <= 0x8F ? 2 : REJECT;
            default:
                return REJECT;
        }
    }
}
