package dev.peregrine.http1;

import java.util.List;

/**
 * The connection options of a response's {@code Connection} fields (RFC 9112 §9.6), and what they say
 * of the connection's reuse (RFC 9112 §9.3): a response with the {@code close} option ends it; an
 * HTTP/1.0 response keeps it only with the {@code keep-alive} option; an HTTP/1.1 one keeps it
 * otherwise. Options are tokens in a comma-separated list, any case, with optional whitespace.
 * Allocates nothing: it runs for every response.
 *
 * <p>Thread: any (pure functions).
 */
public final class ConnectionOptions {
    private ConnectionOptions() {
    }

    /** Whether the connection may carry another request after a response with these fields. */
    public static boolean persistent(boolean http10, List<String> names, List<String> values) {
        boolean keepAlive = false;
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase("Connection")) {
                String v = values.get(i);
                if (hasOption(v, "close")) {
                    return false;
                }
                keepAlive |= http10 && hasOption(v, "keep-alive");
            }
        }
        return !http10 || keepAlive;
    }

    /** Whether the comma-separated list {@code v} holds {@code option}, in any case. */
    static boolean hasOption(String v, String option) {
        int i = 0;
        int n = v.length();
        while (i < n) {
            while (i < n && (v.charAt(i) == ',' || v.charAt(i) == ' ' || v.charAt(i) == '\t')) {
                i++;
            }
            int start = i;
            while (i < n && v.charAt(i) != ',') {
                i++;
            }
            int end = i;
            while (end > start && (v.charAt(end - 1) == ' ' || v.charAt(end - 1) == '\t')) {
                end--;
            }
            if (end - start == option.length() && v.regionMatches(true, start, option, 0, option.length())) {
                return true;
            }
        }
        return false;
    }
}
