package dev.peregrine;

import java.util.Locale;
import java.util.function.Predicate;

/**
 * The {@code Origin} field's grammar (RFC 6454 §7.1, the Fetch standard's serialized origin), for
 * {@link Cors}: what a predicate is allowed to see, and a suffix rule that compares hosts, not strings.
 * <pre>
 *   origin            = "null" / serialized-origin
 *   serialized-origin = scheme "://" host [ ":" port ]      no userinfo, path, query or fragment
 *   scheme            = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
 *   host              = 1*( ALPHA / DIGIT / "-" / "." ) / "[" 1*( HEXDIG / ":" / "." ) "]"
 *   port              = 1*5DIGIT
 * </pre>
 * Thread: any (static, stateless).
 */
final class Origins {
    private Origins() {
    }

    /** Where the host of a well-formed serialized origin begins: after {@code "://"}; -1 when {@code o} is not one. */
    static int hostStart(CharSequence o) {
        int n = o.length();
        int i = 0;
        if (n == 0 || !alpha(o.charAt(0))) {
            return -1;
        }
        while (i < n && (alpha(o.charAt(i)) || digit(o.charAt(i)) || o.charAt(i) == '+' || o.charAt(i) == '-' || o.charAt(i) == '.')) {
            i++;
        }
        if (i + 3 > n || o.charAt(i) != ':' || o.charAt(i + 1) != '/' || o.charAt(i + 2) != '/') {
            return -1;
        }
        int host = i + 3;
        int end = hostEnd(o, host);
        if (end <= host) {
            return -1;
        }
        if (end == n) {
            return host;
        }
        if (o.charAt(end) != ':' || end + 1 == n || n - end - 1 > 5) {
            return -1;
        }
        for (int p = end + 1; p < n; p++) {
            if (!digit(o.charAt(p))) {
                return -1;
            }
        }
        return host;
    }

    /** Where the host starting at {@code from} ends (its first byte past), or -1 when malformed. */
    static int hostEnd(CharSequence o, int from) {
        int n = o.length();
        int i = from;
        if (i < n && o.charAt(i) == '[') {
            i++;
            while (i < n && (hex(o.charAt(i)) || o.charAt(i) == ':' || o.charAt(i) == '.')) {
                i++;
            }
            return i < n && o.charAt(i) == ']' && i > from + 1 ? i + 1 : -1;
        }
        while (i < n && (alpha(o.charAt(i)) || digit(o.charAt(i)) || o.charAt(i) == '-' || o.charAt(i) == '.')) {
            i++;
        }
        return i;
    }

    /** Whether {@code o} is {@code "null"} or a well-formed serialized origin. */
    static boolean wellFormed(CharSequence o) {
        return "null".contentEquals(o) || hostStart(o) > 0;
    }

    /** See {@link Cors#subdomainsOf}. */
    static Predicate<String> subdomainsOf(String scheme, String domain) {
        String s = scheme.toLowerCase(Locale.ROOT);
        String d = domain.toLowerCase(Locale.ROOT);
        if (hostStart(s + "://" + d) != s.length() + 3 || d.startsWith(".") || d.endsWith(".") || d.startsWith("[")) {
            throw new IllegalArgumentException("not a scheme and a domain name: " + scheme + ", " + domain);
        }
        return origin -> {
            int host = hostStart(origin);
            if (host != s.length() + 3 || !origin.regionMatches(true, 0, s, 0, s.length())) {
                return false;
            }
            String h = origin.substring(host, hostEnd(origin, host)).toLowerCase(Locale.ROOT);
            return h.equals(d) || (h.endsWith(d) && h.charAt(h.length() - d.length() - 1) == '.');
        };
    }

    private static boolean alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean digit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean hex(char c) {
        return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
