package dev.peregrine.http1;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code application/x-www-form-urlencoded} (the WHATWG URL standard's form encoding, also the query
 * of a URL): {@code name=value} pairs separated by {@code &}, {@code +} for a space, {@code %XX} for a
 * byte, UTF-8. Empty pairs are skipped; a pair without {@code =} has the value {@code ""}.
 *
 * <p>Thread: any (static).
 */
public final class UrlEncoded {
    private UrlEncoded() {
    }

    /** Every value of {@code name} in {@code [start, end)} of {@code b}, in order (empty when none). */
    public static List<String> values(ByteBuffer b, int start, int end, String name) {
        List<String> out = new ArrayList<>(1);
        int p = start;
        while (p < end) {
            int amp = indexOf(b, p, end, '&');
            if (amp > p) {
                int eq = indexOf(b, p, amp, '=');
                if (RequestView.decode(b, p, eq, true).equals(name)) {
                    out.add(eq == amp ? "" : RequestView.decode(b, eq + 1, amp, true));
                }
            }
            p = amp + 1;
        }
        return out;
    }

    /** Every pair of {@code [start, end)}, decoded, names in first-seen order, values in order. */
    public static Map<String, List<String>> all(ByteBuffer b, int start, int end) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        int p = start;
        while (p < end) {
            int amp = indexOf(b, p, end, '&');
            if (amp > p) {
                int eq = indexOf(b, p, amp, '=');
                String name = RequestView.decode(b, p, eq, true);
                out.computeIfAbsent(name, k -> new ArrayList<>(1)).add(eq == amp ? "" : RequestView.decode(b, eq + 1, amp, true));
            }
            p = amp + 1;
        }
        return out;
    }

    /** {@link #all} of a String (tests, small inputs). */
    public static Map<String, List<String>> parse(String encoded) {
        byte[] bytes = encoded.getBytes(StandardCharsets.ISO_8859_1);
        return all(ByteBuffer.wrap(bytes), 0, bytes.length);
    }

    private static int indexOf(ByteBuffer b, int from, int end, char c) {
        for (int i = from; i < end; i++) {
            if (b.get(i) == c) {
                return i;
            }
        }
        return end;
    }
}
