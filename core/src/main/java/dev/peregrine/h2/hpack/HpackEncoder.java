package dev.peregrine.h2.hpack;

import java.util.Arrays;

/**
 * Encodes field blocks (RFC 7541: the server's responses, the client's requests) into a reusable array. Strategy, chosen so that the peer's
 * decoder state never matters and nothing is allocated per field:
 * <ul>
 *   <li>{@code :status} of 200, 204, 206, 304, 400, 404 and 500: one byte, indexed (§6.1, Appendix A);
 *       other codes: literal without indexing with the static name 8.</li>
 *   <li>Other fields: literal without indexing (§6.2.2), the name by its static index when the static
 *       table ({@link HpackTable}) has it, else as a lowercase literal; the value Huffman-coded
 *       when that is shorter (§5.2).</li>
 * </ul>
 * Never inserting into the dynamic table means the peer's SETTINGS_HEADER_TABLE_SIZE needs no size
 * update (a table of 0 is always within it, §4.2). Field names are lowercased (RFC 9113 §8.2.1).
 *
 * <p>Thread: one owner.
 */
public final class HpackEncoder {
    private byte[] block = new byte[512];
    private int length;
    /** A field's bytes before they are coded. */
    private byte[] scratch = new byte[256];

    /** Starts a new block. */
    public void reset() {
        length = 0;
    }

    public byte[] block() {
        return block;
    }

    public int length() {
        return length;
    }

    /** {@code :status}. */
    public void status(int code) {
        int index;
        switch (code) {
            case 200: index = 8; break;
            case 204: index = 9; break;
            case 206: index = 10; break;
            case 304: index = 11; break;
            case 400: index = 12; break;
            case 404: index = 13; break;
            case 500: index = 14; break;
            default: index = 0;
        }
        if (index != 0) {
            ensure(1);
            block[length++] = (byte) (0x80 | index);
            return;
        }
        ensure(5);
        block[length++] = 0x08; // literal without indexing, name index 8 (:status)
        block[length++] = 3;
        block[length++] = (byte) ('0' + code / 100 % 10);
        block[length++] = (byte) ('0' + code / 10 % 10);
        block[length++] = (byte) ('0' + code % 10);
    }

    /** An indexed field (§6.1): a whole static entry, such as 2 ({@code :method GET}) or 7 ({@code :scheme https}). */
    public void indexed(int index) {
        integer(0x80, 7, index);
    }

    /**
     * A literal without indexing (§6.2.2) whose name is static entry {@code nameIndex} (a pseudo-field
     * such as 1 {@code :authority}, 2 {@code :method}, 4 {@code :path}), the value as given. Requests
     * are encoded with this and {@link #indexed}, so a block never depends on the decoder's table.
     */
    public void field(int nameIndex, CharSequence value) {
        integer(0x00, 4, nameIndex);
        string(chars(value, false));
    }

    /** A field: {@code name} is lowercased; both are ISO-8859-1 text (checked by the response view). */
    public void field(CharSequence name, CharSequence value) {
        int index = staticName(name);
        integer(0x00, 4, index);
        if (index == 0) {
            string(chars(name, true));
        }
        string(chars(value, false));
    }

    /** A field whose value is bytes {@code [off, off+len)} of {@code value}. */
    public void field(CharSequence name, byte[] value, int off, int len) {
        int index = staticName(name);
        integer(0x00, 4, index);
        if (index == 0) {
            string(chars(name, true));
        }
        bytes(value, off, len, false);
        string(len);
    }

    /** A field given as bytes: the name {@code [nameOff, +nameLen)} (lowercased), the value {@code [valueOff, +valueLen)}. */
    public void field(byte[] name, int nameOff, int nameLen, byte[] value, int valueOff, int valueLen) {
        bytes(name, nameOff, nameLen, true);
        int index = staticName(scratchView(nameLen));
        integer(0x00, 4, index);
        if (index == 0) {
            string(nameLen);
        }
        bytes(value, valueOff, valueLen, false);
        string(valueLen);
    }

    private final ScratchChars scratchChars = new ScratchChars();

    /** {@link #scratch}{@code [0, n)} as chars, for the static-name lookup. */
    private CharSequence scratchView(int n) {
        scratchChars.length = n;
        return scratchChars;
    }

    private final class ScratchChars implements CharSequence {
        int length;

        @Override
        public int length() {
            return length;
        }

        @Override
        public char charAt(int index) {
            return (char) (scratch[index] & 0xff);
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            throw new UnsupportedOperationException();
        }

        @Override
        public String toString() {
            return new String(scratch, 0, length, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
    }

    private void bytes(byte[] src, int off, int len, boolean lower) {
        if (scratch.length < len) {
            scratch = new byte[Math.max(len, scratch.length * 2)];
        }
        for (int i = 0; i < len; i++) {
            byte c = src[off + i];
            scratch[i] = lower && c >= 'A' && c <= 'Z' ? (byte) (c + 32) : c;
        }
    }

    /** The static index of {@code name} (case-insensitive), or 0. */
    static int staticName(CharSequence name) {
        int n = name.length();
        outer:
        for (int i = 0; i < HpackTable.STATIC_COUNT; i++) {
            byte[] s = HpackTable.STATIC_NAMES[i];
            if (s.length != n || s[0] == ':') {
                continue;
            }
            for (int k = 0; k < n; k++) {
                char c = name.charAt(k);
                if (c >= 'A' && c <= 'Z') {
                    c += 32;
                }
                if (c != s[k]) {
                    continue outer;
                }
            }
            return i + 1;
        }
        return 0;
    }

    /** Copies {@code cs} as ISO-8859-1 into {@link #scratch}, lowercased if asked; returns its length. */
    private int chars(CharSequence cs, boolean lower) {
        int n = cs.length();
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, scratch.length * 2)];
        }
        for (int i = 0; i < n; i++) {
            char c = cs.charAt(i);
            if (lower && c >= 'A' && c <= 'Z') {
                c += 32;
            }
            scratch[i] = (byte) c;
        }
        return n;
    }

    /** §5.2: {@link #scratch}{@code [0, n)} as a string literal, Huffman-coded when shorter. */
    private void string(int n) {
        int h = Huffman.encodedLength(scratch, 0, n);
        if (h < n) {
            integer(0x80, 7, h);
            ensure(h);
            length = Huffman.encode(scratch, 0, n, block, length);
        } else {
            integer(0x00, 7, n);
            ensure(n);
            System.arraycopy(scratch, 0, block, length, n);
            length += n;
        }
    }

    /** §5.1: {@code v} with an {@code n}-bit prefix, the first byte's other bits {@code flags}. */
    private void integer(int flags, int n, int v) {
        ensure(6);
        int max = (1 << n) - 1;
        if (v < max) {
            block[length++] = (byte) (flags | v);
            return;
        }
        block[length++] = (byte) (flags | max);
        v -= max;
        while (v >= 0x80) {
            block[length++] = (byte) ((v & 0x7f) | 0x80);
            v >>>= 7;
        }
        block[length++] = (byte) v;
    }

    private void ensure(int n) {
        if (length + n > block.length) {
            block = Arrays.copyOf(block, Math.max(length + n, block.length * 2));
        }
    }
}
