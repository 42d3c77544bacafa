// The pre-rewrite ResponseFields, unchanged but for its name: ResponseReaderBefore's, the benchmark baseline.
package dev.peregrine.http1;

import java.nio.ByteBuffer;
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
 *   field i of this response:  bytes == seenNames[i]'s chars ? seenNames[i] : new String  (same for values)
 *   namesCopy():               every names.get(i) == lastNames.get(i) ? lastNames : List.copyOf(names)
 * </pre>
 * Thread: the reader's (the connection's loop thread). Copies handed out never change.
 */
final class ResponseFieldsBefore {
    final List<String> names = new ArrayList<>();
    final List<String> values = new ArrayList<>();
    private String[] seenNames = new String[16];
    private String[] seenValues = new String[16];
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
        }
        String name = text(b, p, colon, seenNames[n]);
        String value = text(b, vs, ve, seenValues[n]);
        seenNames[n] = name;
        seenValues[n] = value;
        names.add(name);
        values.add(value);
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

    /** The ISO-8859-1 text of {@code [from, to)}: {@code seen} itself when it holds the same bytes, else a new String. */
    static String text(ByteBuffer b, int from, int to, String seen) {
        if (seen != null && seen.length() == to - from) {
            int i = 0;
            while (i < to - from && seen.charAt(i) == (b.get(from + i) & 0xFF)) {
                i++;
            }
            if (i == to - from) {
                return seen;
            }
        }
        byte[] a = new byte[to - from];
        b.get(from, a);
        return new String(a, StandardCharsets.ISO_8859_1);
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
