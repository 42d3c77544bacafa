package dev.peregrine.http1;

import dev.peregrine.buffer.Ascii;

import java.nio.ByteBuffer;

/**
 * The header fields that frame or steer a request (Host, Expect, Connection with its close,
 * keep-alive and upgrade options, Content-Length, Transfer-Encoding) and the rules that can only be
 * checked once the whole head is in. One instance per {@link HeadParser}, which calls {@link #reset}
 * at the start of each head, {@link #field} for every field line it has validated, and
 * {@link #finish} after the empty line.
 *
 * <p>A field is recognised by its name's length first, then by its bytes OR-ed with 0x20 and
 * compared as packed little-endian words: {@link #field}, called for every line, is a filter of one
 * compare for Host and one masked compare of the first word for the rest, so that a field that steers
 * nothing costs about nothing; the full match and the rule run out of line. Transfer-Encoding may span
 * several field lines, so its codings are gathered here and judged in {@link #finish} (RFC 9112 §6.1,
 * §6.3).
 *
 * <p>Thread: the owning loop.
 */
final class FramingFields {
    private static final byte[] CHUNKED = Ascii.bytes("chunked");
    private static final byte[] CLOSE = Ascii.bytes("close");
    private static final byte[] KEEP_ALIVE = Ascii.bytes("keep-alive");
    private static final byte[] UPGRADE = Ascii.bytes("upgrade");
    private static final byte[] CONTINUE = Ascii.bytes("100-continue");

    // Per-head state: the Transfer-Encoding codings (the field may span several lines) and Host.
    private boolean teSeen;
    private boolean teUnknown;
    private boolean teChunkedLast;
    private boolean teChunkedTwice;
    private boolean teChunkedSeen;
    private int hostCount;
    private int hostStart;
    private int hostEnd;
    // The last Host value found valid, at most 16 bytes (see validHost).
    private int lastHostLength = -1;
    private long lastHostFirst;
    private long lastHostLast;

    /** Forgets the previous head's fields. */
    void reset() {
        teSeen = false;
        teUnknown = false;
        teChunkedLast = false;
        teChunkedTwice = false;
        teChunkedSeen = false;
        hostCount = 0;
    }

    // Field names lower-cased by OR-ing 0x20 into every byte, packed little-endian. The OR is exact
    // here: a tchar maps onto a letter or '-' only if it is that letter in either case, or '-'.
    private static final int HOST_4 = Ascii.packInt("host");
    private static final int EXPE_4 = Ascii.packInt("expe");
    private static final long CONNECTI_8 = Ascii.packLong("connecti");
    private static final long CONTENT__8 = Ascii.packLong("content-");
    private static final long LENGTH_6 = Ascii.packLong("length");
    private static final long TRANSFER_8 = Ascii.packLong("transfer");
    private static final long _ENCODIN_8 = Ascii.packLong("-encodin");
    private static final int LOWER_4 = 0x2020_2020;
    private static final long LOWER_8 = 0x2020_2020_2020_2020L;

    private static int lower2(ByteBuffer b, int i) {
        return (b.getShort(i) | 0x2020) & 0xFFFF;
    }

    // The lower-cased first eight bytes of the names of 6 to 17 bytes that steer (Expect, Connection,
    // Content-Length, Transfer-Encoding), and the mask of the bytes that are the name's, by length. A
    // length no such name has gets a mask of 0 and a word no masked word equals.
    private static final long[] FIRST_WORD = new long[18];
    private static final long[] FIRST_MASK = new long[18];

    static {
        java.util.Arrays.fill(FIRST_WORD, -1L);
        FIRST_MASK[6] = 0xFFFF_FFFF_FFFFL;
        FIRST_WORD[6] = Ascii.packLong("expect");
        FIRST_MASK[10] = -1L;
        FIRST_WORD[10] = CONNECTI_8;
        FIRST_MASK[14] = -1L;
        FIRST_WORD[14] = CONTENT__8;
        FIRST_MASK[17] = -1L;
        FIRST_WORD[17] = TRANSFER_8;
    }

    /**
     * Handles a field that frames or steers the message; returns 0 or a status. Called for every field
     * line, so it stays small enough to be compiled into the parser's loop: Host by one compare, every
     * other name by its length and one masked compare of its first word (a field line holds at least
     * its name, the colon and CRLF, so eight bytes from a name of six or more are in the buffer); only
     * a name that passes is matched in full, out of line ({@link #steering}).
     */
    int field(ByteBuffer b, int ns, int ne, int vs, int ve, RequestHead r) {
        int n = ne - ns;
        if (n == 4) {
            if ((b.getInt(ns) | LOWER_4) == HOST_4) {
                hostCount++;
                hostStart = vs;
                hostEnd = ve;
            }
            return 0;
        }
        if (n < 6 || n > 17 || ((b.getLong(ns) | LOWER_8) & FIRST_MASK[n]) != FIRST_WORD[n]) {
            return 0;
        }
        return steering(b, ns, n, vs, ve, r);
    }

    /** A name of {@code n} bytes whose first word matched one that steers: the whole name, then its rule. */
    private int steering(ByteBuffer b, int ns, int n, int vs, int ve, RequestHead r) {
        switch (n) {
            case 6:
                if ((b.getInt(ns) | LOWER_4) == EXPE_4 && lower2(b, ns + 4) == ('c' | 't' << 8)) {
                    if (!Ascii.equalsLowerCase(b, vs, ve, CONTINUE)) {
                        return 417;
                    }
                    r.expectContinue = true;
                }
                return 0;
            case 10:
                if ((b.getLong(ns) | LOWER_8) == CONNECTI_8 && lower2(b, ns + 8) == ('o' | 'n' << 8)) {
                    connectionTokens(b, vs, ve, r);
                }
                return 0;
            case 14:
                if ((b.getLong(ns) | LOWER_8) == CONTENT__8
                        && ((b.getLong(ns + 6) | LOWER_8) == (LENGTH_6 << 16 | CONTENT__8 >>> 48))) {
                    return contentLength(b, vs, ve, r);
                }
                return 0;
            case 17:
                if ((b.getLong(ns) | LOWER_8) == TRANSFER_8 && (b.getLong(ns + 8) | LOWER_8) == _ENCODIN_8
                        && (b.get(ns + 16) | 0x20) == 'g') {
                    transferCodings(b, vs, ve);
                }
                return 0;
            default:
                return 0;
        }
    }

    /**
     * Content-Length = 1*DIGIT; a list of identical values (from a proxy that merged fields) is
     * accepted as one value, any disagreement is rejected (RFC 9110 §8.6, RFC 9112 §6.3 item 5).
     */
    private static int contentLength(ByteBuffer b, int vs, int ve, RequestHead r) {
        int p = vs;
        while (true) {
            long value = 0;
            int digits = 0;
            while (p < ve && isDigit(b.get(p))) {
                if (++digits > 18) {
                    return 400;
                }
                value = value * 10 + (b.get(p) - '0');
                p++;
            }
            if (digits == 0) {
                return 400;
            }
            if (r.contentLength >= 0 && r.contentLength != value) {
                return 400;
            }
            r.contentLength = value;
            while (p < ve && (b.get(p) == ' ' || b.get(p) == '\t')) {
                p++;
            }
            if (p == ve) {
                return 0;
            }
            if (b.get(p) != ',') {
                return 400;
            }
            p++;
            while (p < ve && (b.get(p) == ' ' || b.get(p) == '\t')) {
                p++;
            }
        }
    }

    private static final long KEEP_ALI_8 = Ascii.packLong("keep-ali");
    private static final long CLOSE_5 = Ascii.packLong("close");

    private static void connectionTokens(ByteBuffer b, int vs, int ve, RequestHead r) {
        // The two values clients send, each as one word compare (OR 0x20 maps '-' onto itself); "close"
        // reads three bytes past the value (its CRLF and one more), masked off, where the buffer has them.
        if (ve - vs == 10 && (b.getLong(vs) | LOWER_8) == KEEP_ALI_8 && lower2(b, vs + 8) == ('v' | 'e' << 8)) {
            r.connectionKeepAlive = true;
            return;
        }
        if (ve - vs == 5 && vs + 8 <= b.limit() && ((b.getLong(vs) | LOWER_8) & 0xFF_FFFF_FFFFL) == CLOSE_5) {
            r.connectionClose = true;
            return;
        }
        int p = vs;
        while (p < ve) {
            int c = b.get(p);
            if (c == ',' || c == ' ' || c == '\t') {
                p++;
                continue;
            }
            int ts = p;
            while (p < ve && (c = b.get(p)) != ',' && c != ' ' && c != '\t') {
                p++;
            }
            int n = p - ts;
            if (n == 5 && Ascii.equalsLowerCase(b, ts, p, CLOSE)) {
                r.connectionClose = true;
            } else if (n == 10 && Ascii.equalsLowerCase(b, ts, p, KEEP_ALIVE)) {
                r.connectionKeepAlive = true;
            } else if (n == 7 && Ascii.equalsLowerCase(b, ts, p, UPGRADE)) {
                r.connectionUpgrade = true; // RFC 9110 §7.8: the server looks at Upgrade only then
            }
        }
    }

    /** Reads one Transfer-Encoding field's codings into the per-parse scratch state. */
    private void transferCodings(ByteBuffer b, int vs, int ve) {
        teSeen = true;
        int p = vs;
        while (p < ve) {
            while (p < ve && (b.get(p) == ',' || b.get(p) == ' ' || b.get(p) == '\t')) {
                p++;
            }
            if (p == ve) {
                break;
            }
            int ts = p;
            while (p < ve && b.get(p) != ',') {
                p++;
            }
            int te = p;
            while (te > ts && (b.get(te - 1) == ' ' || b.get(te - 1) == '\t')) {
                te--;
            }
            if (Ascii.equalsLowerCase(b, ts, te, CHUNKED)) {
                teChunkedTwice |= teChunkedSeen;
                teChunkedSeen = true;
                teChunkedLast = true;
            } else {
                teUnknown = true;
                teChunkedLast = false;
            }
        }
    }

    /**
     * {@link Authority#valid} for the Host value, remembering the last valid one of at most 16 bytes
     * (its length and the words at its first byte and ending at its last identify it exactly: for a
     * value shorter than 8 bytes the first word holds it whole, plus the CRLF and bytes after it):
     * clients send the same Host on every request, and a byte-by-byte check per request cost about 10%
     * of a pipelined request's CPU. A short value too near either end of the buffer for a word is
     * checked each time.
     */
    private boolean validHost(ByteBuffer b, int s, int e) {
        int length = e - s;
        if (length <= 16 && s + 8 <= b.limit() && e >= 8) { // from 8 bytes on, both hold by themselves
            long first = b.getLong(s);
            long last = b.getLong(e - 8);
            if (length == lastHostLength && first == lastHostFirst && last == lastHostLast) {
                return true;
            }
            if (!Authority.valid(b, s, e, true)) {
                return false;
            }
            lastHostLength = length;
            lastHostFirst = first;
            lastHostLast = last;
            return true;
        }
        return Authority.valid(b, s, e, true);
    }

    /** Checks the rules that need the whole head; returns {@code headEnd} or {@code -status}. */
    int finish(RequestHead r, int headEnd) {
        if (r.version == 11 && hostCount != 1) {
            return -400; // RFC 9112 §3.2: exactly one Host in HTTP/1.1
        }
        if (hostCount > 1) {
            return -400;
        }
        if (hostCount == 1 && !validHost(r.buf, hostStart, hostEnd)) {
            return -400; // RFC 9112 §3.2: a server MUST answer 400 to an invalid Host value
        }
        if (teSeen) {
            if (r.version == 10 || r.contentLength >= 0) {
                return -400; // RFC 9112 §6.1 (1.0 framing in doubt), §6.3 item 3 (both present: smuggling)
            }
            if (teChunkedSeen && !teChunkedLast || teChunkedTwice) {
                return -400; // RFC 9112 §6.3 item 4: chunked must be the final coding (a MUST), applied once
            }
            if (teUnknown) {
                return -501; // RFC 9112 §6.1: a coding we do not implement
            }
            if (!teChunkedLast) {
                return -400; // an empty Transfer-Encoding
            }
            r.chunked = true;
        }
        return headEnd;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }
}
