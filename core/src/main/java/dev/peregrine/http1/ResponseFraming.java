package dev.peregrine.http1;

/**
 * The values of a response's framing fields (RFC 9112 §6.3), read without splitting or streams in the
 * usual case of one plain value.
 * <ul>
 *   <li>{@code Content-Length}: 1 to 18 digits; a list of equal values counts as one (RFC 9110 §8.6),
 *       differing values are {@link #CONFLICTING}, anything else (empty, a sign, a lone comma) is
 *       {@link #MALFORMED}.</li>
 *   <li>{@code Transfer-Encoding}: whether {@code chunked} is the last coding, any case, with optional
 *       whitespace, empty list elements ignored (RFC 9110 §5.6.1); and whether it comes before another
 *       one, which is refused (RFC 9112 §6.1: chunked at most once, and last); and any other coding,
 *       which a client cannot decode ({@link #otherCoding}).</li>
 * </ul>
 * Thread: any (pure functions).
 */
final class ResponseFraming {
    static final long MALFORMED = -1;
    static final long CONFLICTING = -2;

    private ResponseFraming() {
    }

    /** The length a Content-Length value gives, or {@link #MALFORMED} or {@link #CONFLICTING}. */
    static long contentLength(String cl) {
        String v = cl;
        if (cl.indexOf(',') >= 0) {
            String[] parts = cl.split(",");
            for (String part : parts) {
                if (!part.trim().equals(parts[0].trim())) {
                    return CONFLICTING;
                }
            }
            v = parts.length == 0 ? "" : parts[0];
        }
        v = v.trim();
        if (v.isEmpty() || v.length() > 18) {
            return MALFORMED;
        }
        for (int i = 0; i < v.length(); i++) {
            if (v.charAt(i) < '0' || v.charAt(i) > '9') {
                return MALFORMED;
            }
        }
        return Long.parseLong(v);
    }

    /** Whether {@code chunked} comes before another (non-empty) coding: refused (RFC 9112 §6.1). */
    static boolean chunkedBeforeAnother(String te) {
        if (te.indexOf(',') < 0) {
            return false;
        }
        boolean chunkedSeen = false;
        for (String coding : te.split(",")) {
            String t = coding.trim();
            if (t.isEmpty()) {
                continue; // empty list elements are ignored
            }
            if (chunkedSeen) {
                return true;
            }
            chunkedSeen = t.equalsIgnoreCase("chunked");
        }
        return false;
    }

    /**
     * The first coding other than {@code chunked} in a Transfer-Encoding value, or null. A client decodes
     * {@code chunked} alone, and a body still in another coding must not be handed on as if decoded.
     */
    static String otherCoding(String te) {
        if (te.indexOf(',') < 0) {
            String t = te.trim();
            return t.isEmpty() || t.equalsIgnoreCase("chunked") ? null : t;
        }
        for (String coding : te.split(",")) {
            String t = coding.trim();
            if (!t.isEmpty() && !t.equalsIgnoreCase("chunked")) {
                return t;
            }
        }
        return null;
    }

    /** Whether the last coding of a Transfer-Encoding value is {@code chunked}. */
    static boolean lastCodingIsChunked(String te) {
        int to = te.length();
        while (to > 0 && (te.charAt(to - 1) == ',' || te.charAt(to - 1) == ' ' || te.charAt(to - 1) == '\t')) {
            to--; // empty list elements are ignored
        }
        int from = te.lastIndexOf(',', to - 1) + 1;
        while (from < to && (te.charAt(from) == ' ' || te.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (te.charAt(to - 1) == ' ' || te.charAt(to - 1) == '\t')) {
            to--;
        }
        return to - from == 7 && te.regionMatches(true, from, "chunked", 0, 7);
    }
}
