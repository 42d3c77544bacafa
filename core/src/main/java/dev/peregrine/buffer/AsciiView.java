package dev.peregrine.buffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A reusable {@link CharSequence} over bytes of a buffer, one byte a character (ISO-8859-1, so
 * ASCII reads as itself and any other byte maps to one {@code char}). Re-pointed with {@link #set};
 * valid only while the bytes it covers stay unchanged (for request views: while the handler runs).
 * {@link #toString()} makes a {@code String} copy.
 */
public final class AsciiView implements CharSequence {
    private ByteBuffer buf;
    private int start;
    private int end;

    /** Points this view at bytes {@code [start, end)} of {@code buf}. */
    public AsciiView set(ByteBuffer buf, int start, int end) {
        this.buf = buf;
        this.start = start;
        this.end = end;
        return this;
    }

    @Override
    public int length() {
        return end - start;
    }

    @Override
    public char charAt(int index) {
        if (index < 0 || index >= end - start) {
            throw new IndexOutOfBoundsException(index);
        }
        return (char) (buf.get(start + index) & 0xFF);
    }

    /** The buffer this view reads. */
    public ByteBuffer buffer() {
        return buf;
    }

    /** Index in {@link #buffer()} of the first byte. */
    public int start() {
        return start;
    }

    /** Index in {@link #buffer()} just past the last byte. */
    public int end() {
        return end;
    }

    /** Whether the bytes equal {@code s}, compared char for byte. */
    public boolean contentEquals(CharSequence s) {
        int n = end - start;
        if (s.length() != n) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if ((buf.get(start + i) & 0xFF) != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the bytes equal {@code s} ignoring ASCII case. */
    public boolean equalsIgnoreCase(CharSequence s) {
        return Ascii.equalsIgnoreCase(buf, start, end, s);
    }

    @Override
    public CharSequence subSequence(int from, int to) {
        if (from < 0 || to > end - start || from > to) {
            throw new IndexOutOfBoundsException();
        }
        return new AsciiView().set(buf, start + from, start + to);
    }

    @Override
    public String toString() {
        byte[] bytes = new byte[end - start];
        buf.get(start, bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }
}
