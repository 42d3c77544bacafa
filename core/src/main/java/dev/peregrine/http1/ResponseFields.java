package dev.peregrine.http1;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The header fields of the response a {@link ResponseReader} is reading, as {@code String}s, without
 * allocating for what repeats: a connection's responses mostly carry the same fields in the same
 * order ({@code Server}, {@code Content-Type}, {@code Content-Length}...), so a name or value whose
 * bytes equal the previous response's at the same position is that same {@code String}, and lists
 * whose every element is the same are the same unmodifiable copy.
 * <pre>
 *   field i of this response:  bytes == nameBytes[i] (a word at a time) ? seenNames[i] : new String  (same for values)
 *   namesCopy():               every names.get(i) == lastNames.get(i) ? lastNames : List.copyOf(names)
 * </pre>
 * Thread: the reader's (the connection's loop thread). Copies handed out never change.
 */
final class ResponseFields {
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    final List<String> names = new ArrayList<>();
    final List<String> values = new ArrayList<>();
    /** Slot i holds field i of the previous responses: the String and its bytes (to compare a word at a time). */
    private String[] seenNames = new String[16];
    private String[] seenValues = new String[16];
    private byte[][] nameBytes = new byte[16][];
    private byte[][] valueBytes = new byte[16][];
    private String seenReason;
    private byte[] reasonBytes;
    private List<String> lastNames = List.of();
    private List<String> lastValues = List.of();

    /** A new response begins. */
    void clear() {
        names.clear();
        values.clear();
    }

    /** Adds the field with name {@code [p, colon)} and value {@code [vs, ve)} of {@code b} (already validated). */
    void add(ByteBuffer b, int p, int colon, int vs, int ve) {
        int n = names.size();
        if (n == seenNames.length) {
            seenNames = Arrays.copyOf(seenNames, 2 * n);
            seenValues = Arrays.copyOf(seenValues, 2 * n);
            nameBytes = Arrays.copyOf(nameBytes, 2 * n);
            valueBytes = Arrays.copyOf(valueBytes, 2 * n);
        }
        boolean le = b.order() == ByteOrder.LITTLE_ENDIAN;
        String name = seenNames[n];
        if (name == null || !same(b, p, colon, name.length(), nameBytes[n], le)) {
            byte[] a = nameBytes[n] = bytes(b, p, colon, nameBytes[n]);
            name = seenNames[n] = new String(a, 0, colon - p, StandardCharsets.ISO_8859_1);
        }
        String value = seenValues[n];
        if (value == null || !same(b, vs, ve, value.length(), valueBytes[n], le)) {
            byte[] a = valueBytes[n] = bytes(b, vs, ve, valueBytes[n]);
            value = seenValues[n] = new String(a, 0, ve - vs, StandardCharsets.ISO_8859_1);
        }
        names.add(name);
        values.add(value);
    }

    /** The reason phrase {@code [from, to)}: the previous one itself when its bytes are the same. */
    String reason(ByteBuffer b, int from, int to) {
        if (seenReason == null || !same(b, from, to, seenReason.length(), reasonBytes, b.order() == ByteOrder.LITTLE_ENDIAN)) {
            reasonBytes = bytes(b, from, to, reasonBytes);
            seenReason = new String(reasonBytes, 0, to - from, StandardCharsets.ISO_8859_1);
        }
        return seenReason;
    }

    /** Whether {@code [from, to)} of {@code b} holds the {@code length} bytes of {@code seen}; eight at a time. */
    private static boolean same(ByteBuffer b, int from, int to, int length, byte[] seen, boolean littleEndian) {
        if (to - from != length) {
            return false;
        }
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            long w = b.getLong(from + i);
            if ((littleEndian ? w : Long.reverseBytes(w)) != (long) LONG_LE.get(seen, i)) {
                return false;
            }
        }
        for (; i < length; i++) {
            if (b.get(from + i) != seen[i]) {
                return false;
            }
        }
        return true;
    }

    /** {@code [from, to)} of {@code b} copied into {@code into}, or into a new array when it is too small. */
    private static byte[] bytes(ByteBuffer b, int from, int to, byte[] into) {
        byte[] a = into != null && into.length >= to - from ? into : new byte[Math.max(16, to - from)];
        b.get(from, a, 0, to - from);
        return a;
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
