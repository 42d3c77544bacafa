package dev.peregrine.http1;

import dev.peregrine.buffer.HttpTokens;

/**
 * What a handler may put in a response's header fields, checked at the call so that a mistake is an
 * exception there rather than a malformed response on the wire: names are tokens and not framing
 * fields the server sets itself; values hold no byte that could split the response or has no single
 * encoding. Used by the exchange's response view for headers, content types and interim responses.
 *
 * <p>Thread: any (no state).
 */
public final class HeaderRules {
    private HeaderRules() {
    }

    /**
     * Rejects an empty name, a byte outside {@code tchar} (RFC 9110 §5.1), and the framing fields
     * the server writes itself ({@code Date}, {@code Server}, {@code Connection}, {@code Content-Length},
     * {@code Transfer-Encoding}).
     */
    public static void checkName(String name) {
        int n = name.length();
        if (n == 0) {
            throw new IllegalArgumentException("empty header name");
        }
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (c > 0xFF || !HttpTokens.TCHAR[c]) {
                throw new IllegalArgumentException("invalid header name: " + name);
            }
        }
        switch (n) {
            case 4:
                reserved(name, "Date");
                break;
            case 6:
                reserved(name, "Server");
                break;
            case 10:
                reserved(name, "Connection");
                break;
            case 14:
                reserved(name, "Content-Length");
                break;
            case 17:
                reserved(name, "Transfer-Encoding");
                break;
            default:
                break;
        }
    }

    private static void reserved(String name, String framing) {
        if (name.equalsIgnoreCase(framing)) {
            throw new IllegalArgumentException(framing + " is set by the server");
        }
    }

    /**
     * What is validated must be what is encoded: a {@code String} is immutable and kept as it is (no
     * copy on the fast path); any other {@code CharSequence} (a {@code StringBuilder}, a request's
     * header view) could change between this call and the encoding, so its current content is copied.
     */
    public static CharSequence immutable(CharSequence value) {
        return value instanceof String ? value : value.toString();
    }

    /**
     * Rejects CR, LF, NUL and other controls, so that no value can split the response (RFC 9110 §5.5),
     * and every byte outside visible ASCII, space and tab: the encoder writes one byte per char, so a
     * non-ASCII value has no single right encoding on the wire (RFC 9110 §5.5 obs-text); encode it
     * first (RFC 8187, percent-encoding).
     */
    public static void checkValue(CharSequence value) {
        for (int i = 0, n = value.length(); i < n; i++) {
            char c = value.charAt(i);
            if (c > 0x7E || !HttpTokens.FIELD_VALUE[c]) {
                throw new IllegalArgumentException("invalid character in header value at index " + i
                        + (c > 0x7E ? " (non-ASCII: encode it first)" : " (control character)"));
            }
        }
    }
}
