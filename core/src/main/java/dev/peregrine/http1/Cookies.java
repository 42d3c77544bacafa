package dev.peregrine.http1;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code Cookie} request header as RFC 6265 §5.4 servers read it, as leniently as browsers send
 * it: {@code name=value} pairs separated by {@code ;} and optional spaces; a value in double quotes
 * loses them; pairs without {@code =} or with an empty name are skipped; the first of repeated names
 * wins (the most specific path, RFC 6265 §5.4 item 2). Values are not decoded.
 *
 * <p>Thread: any (static).
 */
public final class Cookies {
    private Cookies() {
    }

    /** The value of cookie {@code name} in the header {@code header} (may be null), or null. */
    public static String get(String header, String name) {
        if (header == null) {
            return null;
        }
        int p = 0;
        int n = header.length();
        while (p < n) {
            int semi = header.indexOf(';', p);
            if (semi < 0) {
                semi = n;
            }
            int eq = header.indexOf('=', p);
            if (eq > p && eq < semi && header.substring(p, eq).trim().equals(name)) {
                return unquote(header.substring(eq + 1, semi).trim());
            }
            p = semi + 1;
        }
        return null;
    }

    /** Every cookie of {@code header} (may be null), in order; the first of repeated names wins. */
    public static Map<String, String> all(String header) {
        Map<String, String> out = new LinkedHashMap<>();
        if (header == null) {
            return out;
        }
        for (String pair : header.split(";")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String name = pair.substring(0, eq).trim();
            if (!name.isEmpty()) {
                out.putIfAbsent(name, unquote(pair.substring(eq + 1).trim()));
            }
        }
        return out;
    }

    private static String unquote(String v) {
        return v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"' ? v.substring(1, v.length() - 1) : v;
    }
}
