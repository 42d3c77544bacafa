package dev.peregrine.http1;

import dev.peregrine.compress.Coding;

/**
 * Accept-Encoding negotiation (RFC 9110 §12.5.3): which content codings a client takes, by q-value,
 * {@code *} included, {@code q=0} meaning "not this one".
 *
 * <p>Thread: any (static).
 */
public final class AcceptEncoding {
    private AcceptEncoding() {
    }

    /** Whether {@code header} takes {@code coding} with q &gt; 0 (an explicit entry wins over {@code *}). */
    public static boolean accepts(CharSequence header, String coding) {
        return q(header, coding) > 0;
    }

    /**
     * The coding to use among {@code offered} (the server's order of preference): the highest q-value,
     * a coding the client names before one it takes only through {@code *} on a tie, then the earlier
     * in {@code offered}; when only {@code *} speaks for every candidate, gzip (the one every client
     * decodes) if offered. Null when the client takes none of them.
     */
    public static Coding choose(CharSequence header, Coding[] offered) {
        if (header == null) {
            return null;
        }
        double star = q(header, "*", -1);
        Coding best = null;
        double bestQ = 0;
        boolean bestNamed = false;
        for (Coding c : offered) {
            double named = q(header, c.token(), -1);
            double q = named >= 0 ? named : star;
            if (q <= 0) {
                continue;
            }
            boolean isNamed = named >= 0;
            boolean better = best == null || q > bestQ
                    || (q == bestQ && isNamed && !bestNamed)
                    || (q == bestQ && !isNamed && !bestNamed && c == Coding.GZIP);
            if (better) {
                best = c;
                bestQ = q;
                bestNamed = isNamed;
            }
        }
        return best;
    }

    /**
     * The q-value {@code header} gives {@code coding}: its own entry, else {@code *}'s, else 0. Scans
     * the characters in place (no allocation): {@code name *( OWS ";" OWS param ) } per item.
     */
    static double q(CharSequence header, String coding) {
        return q(header, coding, 0);
    }

    /** Like {@link #q(CharSequence, String)}, but {@code unnamed} when the header does not name {@code coding}. */
    private static double q(CharSequence header, String coding, double unnamed) {
        if (header == null) {
            return unnamed;
        }
        double star = unnamed;
        int n = header.length();
        int p = 0;
        while (p < n) {
            int itemEnd = p;
            while (itemEnd < n && header.charAt(itemEnd) != ',') {
                itemEnd++;
            }
            int ns = skipSpace(header, p, itemEnd);
            int ne = ns;
            while (ne < itemEnd && header.charAt(ne) != ';' && header.charAt(ne) != ' ' && header.charAt(ne) != '\t') {
                ne++;
            }
            double q = qParam(header, ne, itemEnd);
            if (regionIs(header, ns, ne, coding) || (coding.equals("gzip") && regionIs(header, ns, ne, "x-gzip"))) {
                return q;
            }
            if (unnamed == 0 && ne - ns == 1 && header.charAt(ns) == '*') {
                star = q;
            }
            p = itemEnd + 1;
        }
        return star;
    }

    /** The {@code q} parameter in {@code [p, end)} (after the coding name), 1 when absent, 0 when malformed. */
    private static double qParam(CharSequence h, int p, int end) {
        for (int i = p; i + 1 < end; i++) {
            char c = h.charAt(i);
            if ((c == 'q' || c == 'Q') && h.charAt(i + 1) == '=' && precededBySemicolon(h, p, i)) {
                // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
                int j = i + 2;
                int whole = j < end ? h.charAt(j) - '0' : -1;
                if (whole != 0 && whole != 1) {
                    return 0;
                }
                double v = whole;
                j++;
                if (j < end && h.charAt(j) == '.') {
                    double scale = 0.1;
                    for (j++; j < end && Character.isDigit(h.charAt(j)); j++) {
                        v += (h.charAt(j) - '0') * scale;
                        scale /= 10;
                    }
                }
                return Math.min(v, 1);
            }
        }
        return 1;
    }

    private static boolean precededBySemicolon(CharSequence h, int from, int i) {
        for (int k = i - 1; k >= from; k--) {
            char c = h.charAt(k);
            if (c == ';') {
                return true;
            }
            if (c != ' ' && c != '\t') {
                return false;
            }
        }
        return false;
    }

    private static int skipSpace(CharSequence h, int p, int end) {
        while (p < end && (h.charAt(p) == ' ' || h.charAt(p) == '\t')) {
            p++;
        }
        return p;
    }

    private static boolean regionIs(CharSequence h, int start, int end, String s) {
        if (end - start != s.length()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = h.charAt(start + i);
            if (Character.toLowerCase(c) != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }
}
