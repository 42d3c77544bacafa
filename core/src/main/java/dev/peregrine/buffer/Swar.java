package dev.peregrine.buffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * "SIMD within a register": tests on eight bytes at once, read little-endian from a buffer so that
 * the byte at the lowest index sits in the lowest bits of the {@code long}.
 *
 * <p>Each {@code *Mask} method returns a word whose bit {@code 8*i+7} is set for byte {@code i} that
 * matches. Only the lowest set bit is exact (a borrow may mark later bytes falsely), which is all
 * the callers use: {@link #firstIndex} turns it into the index of the first match.
 */
public final class Swar {
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long HIGHS = 0x8080_8080_8080_8080L;

    private Swar() {
    }

    /**
     * Reads a word through a little-endian long view of the buffer on JDK 17 to 20, through
     * {@link ByteBuffer#getLong(int)} after. JDK 17's {@code Buffer.checkIndex(i, 8)} is two compares
     * ({@code i < 0}, {@code 8 > limit - i}) that C2 does not take out of a word loop, plus the address
     * arithmetic per read; the view checks the index with {@code Preconditions.checkIndex}, which C2
     * intrinsifies and hoists. Measured on the head parser (callgrind, TechEmpower request): JDK 17 ran
     * 209 more instructions per parse than JDK 25 in the field lines, 133 of them the buffer's checks
     * and address arithmetic. JDK 25's own {@code getLong} is as cheap and its view slightly slower
     * (about 2%), so it keeps {@code getLong}; 18 to 24 were not measured (21 follows 25).
     */
    private static final boolean VIEW = Runtime.version().feature() < 21;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * The eight bytes of little-endian buffer {@code b} from index {@code i}, the byte at {@code i}
     * lowest ({@code b.getLong(i)}), read as fast as the running JDK reads them (see {@link #VIEW}).
     *
     * @throws IndexOutOfBoundsException unless {@code 0 <= i <= b.limit() - 8}
     */
    public static long word(ByteBuffer b, int i) {
        return VIEW ? (long) LONGS.get(b, i) : b.getLong(i);
    }

    /** A word with {@code b} in every byte. */
    public static long broadcast(int b) {
        return ONES * (b & 0xFF);
    }

    /** Marks the bytes equal to zero. */
    public static long zeroMask(long word) {
        return (word - ONES) & ~word & HIGHS;
    }

    /** Marks the bytes equal to the byte broadcast in {@code pattern}. */
    public static long equalMask(long word, long pattern) {
        return zeroMask(word ^ pattern);
    }

    /** Marks the bytes below {@code n} (unsigned; {@code n} at most 128). */
    public static long lessMask(long word, int n) {
        return (word - ONES * n) & ~word & HIGHS;
    }

    private static final long LOW7 = 0x7F7F_7F7F_7F7F_7F7FL;

    /**
     * Marks every byte that is not an ASCII letter, digit or {@code '-'} — exactly, in every lane (no
     * borrow crosses lanes: all arithmetic is on 7-bit lanes whose sums stay below 0x100). Field names
     * are nearly always made of these bytes only, so a name is scanned a word at a time and only the
     * marked bytes (the colon, rarer token characters, invalid bytes) are looked at one by one.
     */
    public static long notAlnumDashMask(long word) {
        long w7 = word & LOW7;
        long lower = w7 | 0x2020_2020_2020_2020L;
        long alpha = (lower + ONES * (0x80 - 'a')) & ~(lower + ONES * (0x7F - 'z'));
        long digit = (w7 + ONES * (0x80 - '0')) & ~(w7 + ONES * (0x7F - '9'));
        long notDash = (w7 ^ broadcast('-')) + LOW7; // high bit clear only where the 7-bit lane is '-'
        return (notDash & ~alpha & ~digit | word) & HIGHS;
    }

    /**
     * Marks the ASCII controls, 0x00 to 0x1F and DEL (0x7F) — exactly, in every lane (7-bit lanes, no
     * borrow or carry between them). Bytes 0x80 to 0xFF are never marked. What a field value may not
     * hold but HTAB (RFC 9110 §5.5), in seven operations where {@code lessMask | equalMask} takes nine.
     */
    public static long controlMask(long word) {
        long w7 = word & LOW7;
        long printable = w7 + ONES * (0x80 - 0x20); // high bit set from 0x20 up
        long del = w7 + ONES; // high bit set at 0x7F only
        return (~printable | del) & ~word & HIGHS;
    }

    /**
     * Marks every byte a request-target's scan stops at: those that are not a visible ASCII character
     * (VCHAR, 0x21 to 0x7E: controls, SP, DEL and 0x80 to 0xFF), {@code '?'} and {@code '#'} — exactly,
     * in every lane (7-bit lanes; a lane's "not this byte" is its XOR plus 0x7F, whose high bit is set
     * unless the XOR is 0), in 12 operations where {@code notVisible | equalMask | equalMask} takes 17.
     */
    public static long targetStopMask(long word) {
        long w7 = word & LOW7;
        long visible = w7 + ONES * (0x80 - 0x21); // high bit set from 0x21 up
        long del = w7 + ONES; // high bit set at 0x7F only
        long notHash = (w7 ^ broadcast('#')) + LOW7;
        long notQuestion = (w7 ^ broadcast('?')) + LOW7;
        return ~(visible & notHash & notQuestion & ~(del | word)) & HIGHS;
    }

    /** The index, 0 to 7, of the first byte a non-zero mask marks. */
    public static int firstIndex(long mask) {
        return Long.numberOfTrailingZeros(mask) >>> 3;
    }
}
