package dev.peregrine.form;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A cursor over the {@code name=value} pairs of a query string or an
 * {@code application/x-www-form-urlencoded} body, read straight from the bytes as they arrived:
 * nothing is copied or decoded until asked, and iterating, comparing and decoding into a caller's
 * array allocate nothing.
 *
 * <pre>
 *  bytes:  a=1&amp;b=x%20y&amp;&amp;flag&amp;c=
 *          ^ ^ ^             ^    ^ ^
 *          | | pair end      |    | value [vs, ve) empty, hasValue() true
 *          | value [vs, ve)  |    name "c"
 *          name [ns, ne)     name "flag", hasValue() false, value ""
 *  empty pairs ("&amp;&amp;") are skipped; '+' is a space and %XX a byte (WHATWG URL, urlencoded
 *  parser); a '%' not followed by two hex digits stays as it is; decoded bytes are read as UTF-8.
 * </pre>
 *
 * <p><b>Limits.</b> {@link #next()} throws {@link FormLimitException} when a source holds more than
 * {@code maxPairs} pairs (default {@value #DEFAULT_MAX_PAIRS}; as Jetty's {@code maxFormKeys}, a
 * bound on what a client can make a handler loop over).
 *
 * <p><b>Validity.</b> The cursor reads the buffer given to {@link #reset}: the pair views are valid
 * while those bytes are (for a request's cursors: while the handler runs). Methods returning
 * {@code String} or {@code List} allocate their result; the rest allocate nothing.
 *
 * <p>Thread: one thread at a time (the thread running the handler, for a request's cursors).
 */
public final class FormCursor {
    /** Pairs allowed per source unless {@link #maxPairs(int)} says otherwise. */
    public static final int DEFAULT_MAX_PAIRS = 1000;
    private static final byte[] HEX = new byte[256];

    static {
        java.util.Arrays.fill(HEX, (byte) -1);
        for (int c = '0'; c <= '9'; c++) {
            HEX[c] = (byte) (c - '0');
        }
        for (int c = 'a'; c <= 'f'; c++) {
            HEX[c] = (byte) (c - 'a' + 10);
            HEX[c - 32] = (byte) (c - 'a' + 10);
        }
    }

    private ByteBuffer buf;
    private int end;
    private int sourceStart;
    private int pos;
    private int nameStart;
    private int nameEnd;
    private int valueStart;
    private int valueEnd;
    private boolean hasValue;
    private int pairs;
    private int maxPairs = DEFAULT_MAX_PAIRS;

    /** A cursor over an empty source; point it with {@link #reset}. */
    public FormCursor() {
    }

    /** A cursor over {@code text} (one byte a char; non-ASCII is encoded as UTF-8 first). Allocates. */
    public static FormCursor of(CharSequence text) {
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        return new FormCursor().reset(ByteBuffer.wrap(bytes), 0, bytes.length);
    }

    /**
     * Points the cursor before the first pair of bytes {@code [start, end)} of {@code buf} (absolute
     * indices; the buffer's position and limit are not used or moved).
     */
    public FormCursor reset(ByteBuffer buf, int start, int end) {
        this.buf = buf;
        this.sourceStart = start;
        this.pos = start;
        this.end = end;
        this.pairs = 0;
        this.nameStart = this.nameEnd = this.valueStart = this.valueEnd = start;
        this.hasValue = false;
        return this;
    }

    /** Points the cursor back before the first pair of its current source. */
    public FormCursor rewind() {
        return reset(buf, sourceStart, end);
    }

    /**
     * Sets the most pairs one source may hold (at least 1).
     *
     * @throws IllegalArgumentException for less than 1
     */
    public FormCursor maxPairs(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxPairs must be at least 1: " + max);
        }
        maxPairs = max;
        return this;
    }

    /**
     * Moves to the next non-empty pair.
     *
     * @return false when there is none left
     * @throws FormLimitException when the source holds more than {@code maxPairs} pairs
     */
    public boolean next() {
        while (pos < end) {
            int p = pos;
            int amp = p;
            int eq = -1;
            while (amp < end) {
                byte c = buf.get(amp);
                if (c == '&') {
                    break;
                }
                if (c == '=' && eq < 0) {
                    eq = amp;
                }
                amp++;
            }
            pos = amp + 1;
            if (amp == p) {
                continue; // "&&" or a trailing '&'
            }
            if (++pairs > maxPairs) {
                throw new FormLimitException("more than " + maxPairs + " form fields");
            }
            nameStart = p;
            nameEnd = eq < 0 ? amp : eq;
            hasValue = eq >= 0;
            valueStart = eq < 0 ? amp : eq + 1;
            valueEnd = amp;
            return true;
        }
        return false;
    }

    /** Whether the current pair had an {@code '='} (so {@code "flag"} has none, {@code "c="} has one). */
    public boolean hasValue() {
        return hasValue;
    }

    /** Whether the current pair's decoded name is {@code name}. No allocation. */
    public boolean nameIs(CharSequence name) {
        return decodedEquals(nameStart, nameEnd, name);
    }

    /** Whether the current pair's decoded value is {@code value}. No allocation. */
    public boolean valueIs(CharSequence value) {
        return decodedEquals(valueStart, valueEnd, value);
    }

    /** The current name, percent-encoded as sent, as bytes {@code [rawNameStart, rawNameEnd)} of {@link #buffer()}. */
    public int rawNameStart() {
        return nameStart;
    }

    /** See {@link #rawNameStart()}. */
    public int rawNameEnd() {
        return nameEnd;
    }

    /** The current value, percent-encoded as sent, as bytes {@code [rawValueStart, rawValueEnd)}. */
    public int rawValueStart() {
        return valueStart;
    }

    /** See {@link #rawValueStart()}. */
    public int rawValueEnd() {
        return valueEnd;
    }

    /** The buffer the cursor reads. */
    public ByteBuffer buffer() {
        return buf;
    }

    /**
     * Decodes the current name into {@code dst} from {@code offset}. No allocation.
     *
     * @return the number of bytes written, or -1 if they do not fit (nothing useful is written then)
     */
    public int decodeName(byte[] dst, int offset) {
        return decode(nameStart, nameEnd, dst, offset);
    }

    /** Decodes the current value into {@code dst}; as {@link #decodeName}. */
    public int decodeValue(byte[] dst, int offset) {
        return decode(valueStart, valueEnd, dst, offset);
    }

    /** The current name, decoded. Allocates. */
    public String name() {
        return decodeString(buf, nameStart, nameEnd);
    }

    /** The current value, decoded ({@code ""} when the pair had no {@code '='}). Allocates. */
    public String value() {
        return decodeString(buf, valueStart, valueEnd);
    }

    /**
     * The first decoded value of {@code name} from the start of the source, or {@code null}. Leaves the
     * cursor at that pair (or at the end). Allocates the result only.
     */
    public String first(CharSequence name) {
        reset(buf, sourceStart, end);
        while (next()) {
            if (nameIs(name)) {
                return value();
            }
        }
        return null;
    }

    /** Every decoded value of {@code name} in order, from the start of the source; empty when absent. */
    public List<String> all(CharSequence name) {
        reset(buf, sourceStart, end);
        List<String> values = new ArrayList<>(2);
        while (next()) {
            if (nameIs(name)) {
                values.add(value());
            }
        }
        return values;
    }

    /**
     * Every pair decoded, from the start of the source: names in first-seen order, each with its
     * values in order. Allocates the result.
     */
    public java.util.Map<String, List<String>> toMap() {
        reset(buf, sourceStart, end);
        java.util.Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        while (next()) {
            out.computeIfAbsent(name(), k -> new ArrayList<>(1)).add(value());
        }
        return out;
    }

    private int decode(int from, int to, byte[] dst, int offset) {
        int n = offset;
        for (int i = from; i < to; i++) {
            if (n >= dst.length) {
                return -1;
            }
            int c = buf.get(i) & 0xFF;
            if (c == '%' && i + 2 < to && hex(i + 1) >= 0 && hex(i + 2) >= 0) {
                dst[n++] = (byte) (hex(i + 1) << 4 | hex(i + 2));
                i += 2;
            } else {
                dst[n++] = (byte) (c == '+' ? ' ' : c);
            }
        }
        return n - offset;
    }

    private int hex(int i) {
        return HEX[buf.get(i) & 0xFF];
    }

    /**
     * Compares the decoded bytes of {@code [from, to)} with the UTF-8 encoding of {@code s}, encoding
     * {@code s} on the fly (no allocation). Unpaired surrogates in {@code s} never match.
     */
    private boolean decodedEquals(int from, int to, CharSequence s) {
        int i = from;
        int n = s.length();
        for (int k = 0; k < n; k++) {
            int cp = s.charAt(k);
            if (Character.isHighSurrogate((char) cp) && k + 1 < n && Character.isLowSurrogate(s.charAt(k + 1))) {
                cp = Character.toCodePoint((char) cp, s.charAt(++k));
            } else if (Character.isSurrogate((char) cp)) {
                return false;
            }
            if (cp < 0x80) {
                if ((i = match(i, to, cp)) < 0) {
                    return false;
                }
            } else if (cp < 0x800) {
                if ((i = match(i, to, 0xC0 | cp >> 6)) < 0 || (i = match(i, to, 0x80 | cp & 0x3F)) < 0) {
                    return false;
                }
            } else if (cp < 0x10000) {
                if ((i = match(i, to, 0xE0 | cp >> 12)) < 0 || (i = match(i, to, 0x80 | cp >> 6 & 0x3F)) < 0
                        || (i = match(i, to, 0x80 | cp & 0x3F)) < 0) {
                    return false;
                }
            } else if ((i = match(i, to, 0xF0 | cp >> 18)) < 0 || (i = match(i, to, 0x80 | cp >> 12 & 0x3F)) < 0
                    || (i = match(i, to, 0x80 | cp >> 6 & 0x3F)) < 0 || (i = match(i, to, 0x80 | cp & 0x3F)) < 0) {
                return false;
            }
        }
        return i == to;
    }

    /** Matches one decoded byte at {@code i} against {@code expected}; the index after it, or -1. */
    private int match(int i, int to, int expected) {
        if (i >= to) {
            return -1;
        }
        int c = buf.get(i) & 0xFF;
        if (c == '%' && i + 2 < to && hex(i + 1) >= 0 && hex(i + 2) >= 0) {
            return (hex(i + 1) << 4 | hex(i + 2)) == expected ? i + 3 : -1;
        }
        return (c == '+' ? ' ' : c) == expected ? i + 1 : -1;
    }

    /** Percent-decodes bytes {@code [from, to)} of {@code b} as UTF-8, {@code '+'} as a space. */
    public static String decodeString(ByteBuffer b, int from, int to) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(to - from);
        for (int i = from; i < to; i++) {
            int c = b.get(i) & 0xFF;
            if (c == '%' && i + 2 < to && HEX[b.get(i + 1) & 0xFF] >= 0 && HEX[b.get(i + 2) & 0xFF] >= 0) {
                out.write(HEX[b.get(i + 1) & 0xFF] << 4 | HEX[b.get(i + 2) & 0xFF]);
                i += 2;
            } else {
                out.write(c == '+' ? ' ' : c);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }
}
