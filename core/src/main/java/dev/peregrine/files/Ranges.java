package dev.peregrine.files;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code Range} header of a request for a representation of {@code size} bytes (RFC 9110
 * §14.1.1): {@code bytes=first-last}, {@code first-} and {@code -suffix}, comma-separated.
 * Thread: any (static).
 */
final class Ranges {
    /** Well-formed, but no range overlaps the representation: 416. */
    static final List<long[]> UNSATISFIABLE = List.of();

    private Ranges() {
    }

    /**
     * The satisfiable ranges as inclusive {@code [first, last]} pairs, in request order;
     * {@link #UNSATISFIABLE}; or null when the header is to be ignored: malformed, another unit,
     * more than {@code maxRanges} ranges, or ranges that overlap (CVE-2011-3192).
     */
    static List<long[]> parse(String header, long size, int maxRanges) {
        String h = header.trim();
        if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
            return null;
        }
        String[] specs = h.substring(6).split(",", -1);
        if (specs.length > maxRanges) {
            return null;
        }
        List<long[]> out = new ArrayList<>();
        for (String spec : specs) {
            String s = spec.trim();
            int dash = s.indexOf('-');
            if (dash < 0 || s.isEmpty()) {
                return null;
            }
            String a = s.substring(0, dash).trim();
            String b = s.substring(dash + 1).trim();
            long first;
            long last;
            if (a.isEmpty()) {
                Long suffix = number(b);
                if (suffix == null) {
                    return null;
                }
                if (suffix == 0 || size == 0) {
                    continue; // unsatisfiable
                }
                first = Math.max(0, size - suffix);
                last = size - 1;
            } else {
                Long f = number(a);
                Long l = b.isEmpty() ? Long.valueOf(Long.MAX_VALUE) : number(b);
                if (f == null || l == null || l < f) {
                    return null;
                }
                if (f >= size) {
                    continue; // unsatisfiable
                }
                first = f;
                last = Math.min(l, size - 1);
            }
            out.add(new long[] {first, last});
        }
        if (out.isEmpty()) {
            return UNSATISFIABLE;
        }
        for (int i = 0; i < out.size(); i++) {
            for (int j = i + 1; j < out.size(); j++) {
                if (out.get(i)[0] <= out.get(j)[1] && out.get(j)[0] <= out.get(i)[1]) {
                    return null; // overlapping: the whole representation instead
                }
            }
        }
        return out;
    }

    private static Long number(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return null;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return null;
            }
        }
        return Long.parseLong(s);
    }
}
