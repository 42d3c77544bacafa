package dev.peregrine.http1;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * The header fields of the response a {@link ResponseReader} is reading, as {@code String}s, without
 * allocating for what repeats: a connection's responses mostly carry the same fields in the same
 * order ({@code Server}, {@code Content-Type}, {@code Content-Length}...), so a name or value whose
 * bytes equal the previous response's at the same position is that same {@code String}, and lists
 * whose every element is the same are the same unmodifiable copy.
 * <pre>
 *   field i of this response:  bytes == seenNames[i]'s (a word at a time) ? seenNames[i].text : new String  (same for values)
 *   namesCopy():               every names.get(i) == lastNames.get(i) ? lastNames : List.copyOf(names)
 * </pre>
 * Thread: the reader's (the connection's loop thread). Copies handed out never change.
 */
final class ResponseFields {
    /** {@link #add}: a field that does not frame the body. */
    static final int OTHER = 0;
    /** {@link #add}: a {@code Content-Length} field, in any case. */
    static final int CONTENT_LENGTH = 1;
    /** {@link #add}: a {@code Transfer-Encoding} field, in any case. */
    static final int TRANSFER_ENCODING = 2;

    final Strings names = new Strings();
    final Strings values = new Strings();
    /** Slot i: field i of the previous responses, name and value. */
    private Seen[] seenNames = new Seen[0];
    private Seen[] seenValues = new Seen[0];
    private final Seen seenReason = new Seen();
    private byte[] scratch = new byte[64];
    private List<String> lastNames = List.of();
    private List<String> lastValues = List.of();

    /** A new response begins. */
    void clear() {
        names.size = 0;
        values.size = 0;
    }

    /**
     * Adds the field with name {@code [p, colon)} and value {@code [vs, ve)} of {@code b} (already
     * validated); returns what the name is: {@link #OTHER}, {@link #CONTENT_LENGTH} or
     * {@link #TRANSFER_ENCODING}.
     */
    int add(ByteBuffer b, int p, int colon, int vs, int ve) {
        int n = names.size;
        if (n == seenNames.length) {
            seenNames = Arrays.copyOf(seenNames, Math.max(8, 2 * n));
            seenValues = Arrays.copyOf(seenValues, seenNames.length);
            for (int i = n; i < seenNames.length; i++) {
                seenNames[i] = new Seen();
                seenValues[i] = new Seen();
            }
        }
        boolean le = b.order() == ByteOrder.LITTLE_ENDIAN;
        Seen name = seenNames[n];
        if (!name.holds(b, p, colon, le)) {
            name.take(b, p, colon, le, scratch(colon - p));
            name.kind = colon - p == 14 && name.text.equalsIgnoreCase("Content-Length") ? CONTENT_LENGTH
                    : colon - p == 17 && name.text.equalsIgnoreCase("Transfer-Encoding") ? TRANSFER_ENCODING : OTHER;
        }
        Seen value = seenValues[n];
        if (!value.holds(b, vs, ve, le)) {
            value.take(b, vs, ve, le, scratch(ve - vs));
        }
        names.add(name.text);
        values.add(value.text);
        return name.kind;
    }

    /** The reason phrase {@code [from, to)}: the previous one itself when its bytes are the same. */
    String reason(ByteBuffer b, int from, int to) {
        boolean le = b.order() == ByteOrder.LITTLE_ENDIAN;
        if (!seenReason.holds(b, from, to, le)) {
            seenReason.take(b, from, to, le, scratch(to - from));
        }
        return seenReason.text;
    }

    private byte[] scratch(int n) {
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, 2 * scratch.length)];
        }
        return scratch;
    }

    /**
     * A text seen at one position of the previous responses, with its bytes packed into words the way
     * a little-endian {@code getLong} reads them, so that the next response's bytes are compared eight
     * at a time:
     * <pre>
     *   text "Content-Type" (12 bytes):  words[0] = "Content-" as a long, words[1] = "Type" in its low 4 bytes
     * </pre>
     */
    private static final class Seen {
        String text;
        long[] words = new long[2];
        int kind;

        /** Whether {@code [from, to)} of {@code b} holds the bytes of {@link #text}. */
        boolean holds(ByteBuffer b, int from, int to, boolean littleEndian) {
            int length = to - from;
            if (text == null || text.length() != length) {
                return false;
            }
            int i = 0;
            for (; i + 8 <= length; i += 8) {
                long w = b.getLong(from + i);
                if ((littleEndian ? w : Long.reverseBytes(w)) != words[i >>> 3]) {
                    return false;
                }
            }
            return i == length || tail(b, from + i, length - i, littleEndian) == words[i >>> 3];
        }

        /**
         * The last {@code n} (1 to 7) bytes at {@code at} packed like a word: one read of a whole word
         * masked when the buffer goes on past them (it does in a head: CRLF follows), else byte by byte.
         */
        private static long tail(ByteBuffer b, int at, int n, boolean littleEndian) {
            if (at + 8 <= b.limit()) {
                long w = b.getLong(at);
                return (littleEndian ? w : Long.reverseBytes(w)) & (-1L >>> (64 - 8 * n));
            }
            long tail = 0;
            for (int i = 0, shift = 0; i < n; i++, shift += 8) {
                tail |= (b.get(at + i) & 0xFFL) << shift;
            }
            return tail;
        }

        /** Makes {@code [from, to)} of {@code b} the text seen here (a new String). */
        void take(ByteBuffer b, int from, int to, boolean littleEndian, byte[] scratch) {
            int length = to - from;
            b.get(from, scratch, 0, length);
            text = new String(scratch, 0, length, StandardCharsets.ISO_8859_1);
            if (words.length < (length >>> 3) + 1) {
                words = new long[(length >>> 3) + 1];
            }
            int i = 0;
            for (; i + 8 <= length; i += 8) {
                long w = b.getLong(from + i);
                words[i >>> 3] = littleEndian ? w : Long.reverseBytes(w);
            }
            words[i >>> 3] = i == length ? 0 : tail(b, from + i, length - i, littleEndian);
        }
    }

    /** A list of the fields' Strings, emptied without clearing (its Strings live on in the slots anyway). */
    static final class Strings extends AbstractList<String> implements RandomAccess {
        private String[] a = new String[16];
        int size;

        @Override
        public boolean add(String s) {
            if (size == a.length) {
                a = Arrays.copyOf(a, 2 * size);
            }
            a[size++] = s;
            return true;
        }

        @Override
        public String get(int i) {
            return a[Objects.checkIndex(i, size)];
        }

        @Override
        public int size() {
            return size;
        }
    }

    List<String> namesCopy() {
        lastNames = same(names, lastNames) ? lastNames : List.copyOf(names);
        return lastNames;
    }

    List<String> valuesCopy() {
        lastValues = same(values, lastValues) ? lastValues : List.copyOf(values);
        return lastValues;
    }

    private static boolean same(List<String> now, List<String> before) {
        if (now.size() != before.size()) {
            return false;
        }
        for (int i = 0; i < now.size(); i++) {
            if (now.get(i) != before.get(i)) {
                return false;
            }
        }
        return true;
    }

    /** At most 80 characters of {@code [from, to)} for an error message, controls and non-ASCII as {@code ?}. */
    static String printable(ByteBuffer b, int from, int to) {
        byte[] a = new byte[Math.min(to, from + 80) - from];
        b.get(from, a);
        return printable(new String(a, StandardCharsets.ISO_8859_1));
    }

    /** At most 80 characters of {@code s} for an error message, controls and non-ASCII as {@code ?}. */
    static String printable(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length() && i < 80; i++) {
            char c = s.charAt(i);
            out.append(c >= 0x20 && c < 0x7F ? c : '?');
        }
        return out.toString();
    }
}
