package dev.peregrine.http1;

import java.nio.ByteBuffer;

/**
 * The form of a request-target (RFC 9112 §3.2), once {@link HeadParser} has found its end and checked
 * its bytes: origin-form ({@code /path?query}), asterisk-form ({@code *}, for OPTIONS), or
 * absolute-form ({@code scheme://authority/path}, whose authority then names the target, §3.2.2).
 * Authority-form (CONNECT) is refused before this is asked. Thread: any (no state).
 */
final class TargetForm {
    private TargetForm() {
    }

    /**
     * Classifies the target {@code [ts, pathEnd)} (the query excluded; its bytes already checked) and
     * sets the path, and for absolute-form the authority, in {@code r}; returns 0 or a status.
     */
    static int classify(ByteBuffer b, int ts, int pathEnd, RequestHead r) {
        int first = b.get(ts);
        if (first == '/') {
            r.pathStart = ts;
            return 0;
        }
        if (first == '*' && pathEnd == ts + 1 && r.queryStart < 0) {
            r.asteriskForm = true;
            r.pathStart = ts;
            return 0;
        }
        // absolute-form: scheme "://" authority path-abempty
        int p = ts;
        while (p < pathEnd && isSchemeChar(b.get(p))) {
            p++;
        }
        if (p == ts || p + 3 > pathEnd || b.get(p) != ':' || b.get(p + 1) != '/' || b.get(p + 2) != '/') {
            return 400;
        }
        p += 3;
        int authorityStart = p;
        while (p < pathEnd && b.get(p) != '/') {
            p++;
        }
        if (p == authorityStart || !Authority.valid(b, authorityStart, p, false)) {
            return 400;
        }
        r.authorityStart = authorityStart; // RFC 9112 §3.2.2: this authority, not Host, names the target
        r.authorityEnd = p;
        if (p == pathEnd) {
            r.absolutePathEmpty = true;
        }
        r.pathStart = p;
        return 0;
    }

    private static boolean isSchemeChar(byte c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    }
}
