package dev.peregrine.buffer;

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

    /** The index, 0 to 7, of the first byte a non-zero mask marks. */
    public static int firstIndex(long mask) {
        return Long.numberOfTrailingZeros(mask) >>> 3;
    }
}
