package dev.peregrine.buffer;

import java.nio.ByteBuffer;

/** Byte-level comparisons and conversions on ASCII text in buffers. No allocation. */
public final class Ascii {
    private Ascii() {
    }

    /** ASCII lower case of {@code c} (other bytes unchanged). */
    public static int toLower(int c) {
        return (c >= 'A' && c <= 'Z') ? c + 32 : c;
    }

    /** Whether bytes {@code [start, end)} of {@code b} equal {@code s} ignoring ASCII case. */
    public static boolean equalsIgnoreCase(ByteBuffer b, int start, int end, CharSequence s) {
        int n = end - start;
        if (s.length() != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            int c = s.charAt(i);
            if (c > 0x7F || toLower(b.get(start + i) & 0xFF) != toLower(c)) {
                return false;
            }
        }
        return true;
    }

    /** Whether bytes {@code [start, end)} of {@code b} equal the lower-case ASCII {@code lower}, ignoring case. */
    public static boolean equalsLowerCase(ByteBuffer b, int start, int end, byte[] lower) {
        if (end - start != lower.length) {
            return false;
        }
        for (int i = 0; i < lower.length; i++) {
            if (toLower(b.get(start + i) & 0xFF) != lower[i]) {
                return false;
            }
        }
        return true;
    }

    /** The bytes of an ASCII string, for constants. */
    public static byte[] bytes(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** {@code s} packed little-endian into a long, as {@link ByteBuffer#getLong(int)} would read it. */
    public static long packLong(String s) {
        long v = 0;
        for (int i = Math.min(8, s.length()) - 1; i >= 0; i--) {
            v = (v << 8) | (s.charAt(i) & 0xFF);
        }
        return v;
    }

    /** {@code s} packed little-endian into an int, as {@link ByteBuffer#getInt(int)} would read it. */
    public static int packInt(String s) {
        return (int) packLong(s.substring(0, 4));
    }
}
