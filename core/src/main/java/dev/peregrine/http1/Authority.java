package dev.peregrine.http1;

import java.nio.ByteBuffer;

/**
 * The authority rule the parser applies to the Host value and to an absolute-form target's authority
 * (RFC 9112 §3.2, §3.2.2; RFC 3986 §3.2):
 * <pre>
 *   authority = host [ ":" port ]            (no userinfo: RFC 9110 §4.2.4 deprecates it in http URIs)
 *   host      = "[" IPv6 "]" / reg-name       (an IPv4 address is a reg-name by its characters)
 *   reg-name  = *( unreserved / pct-encoded / sub-delims )
 *   port      = *DIGIT                        (at most 65535 here)
 * </pre>
 * Thread: any (stateless).
 */
final class Authority {
    private Authority() {
    }

    /**
     * Whether {@code [s, e)} is a valid authority: {@code host [":" port]} with host an IP-literal
     * ({@code [v6]}), or a reg-name / IPv4 of unreserved, pct-encoded and sub-delims characters (RFC 3986
     * §3.2.2), and port at most 65535. No userinfo. An empty Host value is allowed (RFC 9112 §3.2: the
     * target had no authority); an absolute-form authority must not be empty.
     */
    static boolean valid(ByteBuffer b, int s, int e, boolean emptyAllowed) {
        if (s == e) {
            return emptyAllowed;
        }
        int p = s;
        if (b.get(p) == '[') {
            p++;
            while (p < e && b.get(p) != ']') {
                int c = b.get(p);
                if (!(isHexDigit(c) || c == ':' || c == '.')) {
                    return false;
                }
                p++;
            }
            if (p == e || p == s + 1) {
                return false;
            }
            p++;
        } else {
            while (p < e && b.get(p) != ':') {
                int c = b.get(p) & 0xFF;
                if (c == '%') {
                    if (p + 2 >= e || !isHexDigit(b.get(p + 1)) || !isHexDigit(b.get(p + 2))) {
                        return false;
                    }
                    p += 3;
                    continue;
                }
                if (!REG_NAME[c]) {
                    return false;
                }
                p++;
            }
        }
        if (p == e) {
            return true;
        }
        if (b.get(p) != ':') {
            return false;
        }
        p++;
        int port = 0;
        for (int digits = 0; p < e; p++, digits++) {
            int c = b.get(p);
            if (!(c >= '0' && c <= '9') || digits == 5) {
                return false;
            }
            port = port * 10 + c - '0';
        }
        return port <= 65535;
    }

    /** unreserved / sub-delims (RFC 3986 §2.2, §2.3): the bytes of a reg-name besides pct-encoded. */
    private static final boolean[] REG_NAME = new boolean[256];

    static {
        for (char c : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=".toCharArray()) {
            REG_NAME[c] = true;
        }
    }

    private static boolean isHexDigit(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}
