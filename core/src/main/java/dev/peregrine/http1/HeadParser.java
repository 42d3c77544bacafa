package dev.peregrine.http1;

import dev.peregrine.buffer.Ascii;
import dev.peregrine.buffer.HttpTokens;
import dev.peregrine.buffer.Swar;

import java.nio.ByteBuffer;

/**
 * Parses a request head — request line and header fields, up to and including the empty line — from
 * bytes {@code [start, end)} of a little-endian buffer into a {@link RequestHead}, recording offsets,
 * never copying.
 *
 * <p><b>Incremental by restart.</b> {@link #parse} either finds the whole head and returns the index
 * just past it, or returns {@link #NEED_MORE}; the caller calls again from the same start once more
 * bytes arrived. So any split of the input gives the same result. To keep a client that dribbles one
 * byte at a time from costing a full parse per byte, {@link #findHeadEnd} lets the caller look only
 * for the end of the head first.
 *
 * <p><b>Strictness</b> (every failure returns {@code -status}; the caller answers and closes):
 * <table>
 *   <caption>rejections</caption>
 *   <tr><th>input</th><th>status</th><th>rule</th></tr>
 *   <tr><td>request line longer than {@code maxRequestLine}</td><td>414</td><td>RFC 9112 §3</td></tr>
 *   <tr><td>head longer than {@code maxHeadSize}, more than {@code maxHeaders} fields</td><td>431</td><td>RFC 6585 §5</td></tr>
 *   <tr><td>method not a token, not exactly one SP between parts, bad target byte</td><td>400</td><td>RFC 9112 §3</td></tr>
 *   <tr><td>version not {@code HTTP/d.d} (answered at its first wrong byte, before the line ends)</td><td>400</td><td>RFC 9112 §2.3</td></tr>
 *   <tr><td>major version other than 1 (answered once its digit is in)</td><td>505</td><td>RFC 9110 §15.6.6</td></tr>
 *   <tr><td>more than {@link #MAX_EMPTY_LINES} empty lines (CRLF) before the request line (fewer are ignored)</td><td>400</td><td>RFC 9112 §2.2</td></tr>
 *   <tr><td>Host value not {@code host [":" port]} (reg-name, IPv4 or [IPv6]; port ≤ 65535; no userinfo);
 *       the same for an absolute-form target's authority, which then names the target</td><td>400</td><td>RFC 9112 §3.2, §3.2.2</td></tr>
 *   <tr><td>bare CR or bare LF, NUL or other control in a field value</td><td>400</td><td>RFC 9112 §2.2, RFC 9110 §5.5</td></tr>
 *   <tr><td>whitespace between field name and colon, empty name</td><td>400</td><td>RFC 9112 §5.1</td></tr>
 *   <tr><td>obs-fold (a line starting with SP or HTAB)</td><td>400</td><td>RFC 9112 §5.2</td></tr>
 *   <tr><td>Content-Length not digits, or conflicting values</td><td>400</td><td>RFC 9112 §6.3</td></tr>
 *   <tr><td>Transfer-Encoding with Content-Length, in HTTP/1.0, empty, with chunked twice or chunked not last</td><td>400</td><td>RFC 9112 §6.1, §6.3</td></tr>
 *   <tr><td>otherwise, a transfer coding other than chunked ({@code gzip}, {@code gzip, chunked})</td><td>501</td><td>RFC 9112 §6.1</td></tr>
 *   <tr><td>HTTP/1.1 without Host, or more than one Host</td><td>400</td><td>RFC 9112 §3.2</td></tr>
 *   <tr><td>Expect other than 100-continue</td><td>417</td><td>RFC 9110 §10.1.1</td></tr>
 *   <tr><td>CONNECT (no tunnelling here)</td><td>501</td><td>RFC 9110 §9.3.6</td></tr>
 *   <tr><td>{@code *} target with a method other than OPTIONS; target neither origin-, absolute- nor asterisk-form</td><td>400</td><td>RFC 9112 §3.2</td></tr>
 * </table>
 *
 * <p><b>Word at a time.</b> Each scan is a loop that only loads eight bytes and computes one
 * {@link Swar} mask of the bytes it must stop at; the byte a mask marks is then judged alone, and its
 * neighbours are read from the same word:
 * <pre>
 *  step        mask (bytes that stop the word loop)          then, for the marked byte
 *  target      not visible, '?', '#' (targetStopMask)        SP ends it; '?' starts the query; else 400
 *  field line  control (0x00-0x1F, DEL)                      CR ends it (LF must follow); HTAB goes on; else 400
 *  name        not [A-Za-z0-9-]                              ':' ends it; other tchar goes on; else 400
 * </pre>
 * A field line is scanned for its CR from its first byte, before its name is scanned for the colon:
 * where the next line starts then depends on this line's scan alone, so the name's scan, the value's
 * bounds and the framing filter run beside the next line's scan instead of in a chain of dependent loads
 * with it (name first, then the value from the colon, was 10-15% slower on JDK 25: docs/benchmarks.md).
 * Every byte is checked exactly as a byte-at-a-time reading would ({@code HeadParserDifferentialTest}
 * holds the two to the same verdicts). Thread: one instance per event loop.
 */
public final class HeadParser {
    /** The head is not complete yet: call again with more bytes. */
    public static final int NEED_MORE = -1;

    private static final int GET_SP = Ascii.packInt("GET ");
    private static final long HTTP_1_1 = Ascii.packLong("HTTP/1.1");
    private static final long HTTP_1_0 = Ascii.packLong("HTTP/1.0");
    /** CR LF as a little-endian short. */
    private static final short CRLF = (short) ('\r' | '\n' << 8);

    private final int maxRequestLine;
    private final int maxHeadSize;
    private final int maxHeaders;

    /** The fields that frame or steer the request, and the rules that need the whole head. */
    private final FramingFields framing = new FramingFields();

    /**
     * @param maxRequestLine longest request line in bytes, CRLF excluded
     * @param maxHeadSize longest head in bytes, request line and final empty line included
     * @param maxHeaders most header fields
     */
    public HeadParser(int maxRequestLine, int maxHeadSize, int maxHeaders) {
        this.maxRequestLine = maxRequestLine;
        this.maxHeadSize = maxHeadSize;
        this.maxHeaders = maxHeaders;
    }

    /**
     * Parses the head starting at {@code start}, in named steps: empty lines, the request line
     * ({@link #method}, {@link #target}, {@link #version}), the field lines ({@link #fieldLines}: name,
     * value, CRLF), then the rules that need the whole head ({@link FramingFields#finish}). Each step
     * returns the index where the next one starts, or a negative answer ({@link #NEED_MORE},
     * {@code -status}) that the steps above hand back unchanged.
     *
     * @return the index just past the head's empty line, {@link #NEED_MORE}, or {@code -status} for a
     *     request to reject
     */
    public int parse(ByteBuffer b, int start, int end, RequestHead r) {
        r.reset(b);
        framing.reset();
        int p = skipEmptyLines(b, start, end);
        if (p < 0) {
            return p == NEED_MORE ? NEED_MORE : -400;
        }
        p = method(b, p, end, r);
        if (p < 0) {
            return p;
        }
        p = target(b, r.methodStart, p, end, r);
        if (p < 0) {
            return p;
        }
        p = version(b, r.methodStart, p, end, r);
        if (p < 0) {
            return p;
        }
        p = fieldLines(b, p, end, r);
        if (p < 0) {
            return p == NEED_MORE ? needMoreInHeaders(start, end) : p;
        }
        if (p - start > maxHeadSize) {
            return -431;
        }
        return framing.finish(r, p);
    }

    /**
     * The field lines from {@code p} up to and including the empty line, each: name, colon, OWS, value,
     * CRLF (RFC 9112 §5), recorded in {@code r} and shown to the framing rules. Returns the index past
     * the empty line.
     *
     * <p>One loop in one method, its steps small enough to be compiled into it: a method per line ran
     * once per line, so C2 compiled it alone first, then found it too big to inline into the parse, and
     * each line paid a call (and one more for {@link FramingFields#field}). A line's first byte comes
     * from the previous CR's word when it is there. The line's CR is found first ({@link #lineEnd}, see
     * the class doc); where the input ends inside a line, a bad byte of its name still answers 400.
     * An incomplete head answers {@link #NEED_MORE}, which {@link #parse} turns into 431 past
     * {@code maxHeadSize}: the head's start is not carried through the loop (one register less for
     * C2, which keeps fewer of the loop's values on the stack: about 3% on JDK 17, same-JVM pairs).
     */
    private int fieldLines(ByteBuffer b, int p, int end, RequestHead r) {
        int c = p < end ? b.get(p) & 0xFF : -1;
        while (true) {
            if (c < 0) {
                return NEED_MORE;
            }
            if (c == '\r') { // the empty line: end of the head
                if (p + 1 >= end) {
                    return NEED_MORE;
                }
                if (b.get(p + 1) != '\n') {
                    return -400;
                }
                return p + 2;
            }
            if (c == ' ' || c == '\t') {
                return -400; // obs-fold, or whitespace before the first field: RFC 9112 §2.2, §5.2
            }
            int ns = p;
            int cr = lineEnd(b, ns, end); // first: the next line's start depends on it alone
            int ne = fieldName(b, ns, end); // stops at the CR at the latest
            if (ne < 0 || cr < 0) {
                return ne == -400 || cr == -400 ? -400 : cr;
            }
            int vs = valueStart(b, ne + 1, end);
            int ve = valueEnd(b, vs, cr);
            if (r.headerCount == maxHeaders) {
                return -431;
            }
            r.addField(ns, ne, vs, ve);
            int steer = framing.field(b, ns, ne, vs, ve, r);
            if (steer != 0) {
                return -steer;
            }
            p = cr + 2;
            int k = wordIndex; // the CR's index in word (8: read alone); its LF is at k + 1
            c = k < 6 ? byteAt(word, k + 2) : p < end ? b.get(p) & 0xFF : -1;
        }
    }

    /**
     * The method token from the request line's first byte, and the SP after it (GET by one word
     * compare). Sets the method's place in {@code r}; returns the target's first index.
     */
    private int method(ByteBuffer b, int lineStart, int end, RequestHead r) {
        r.methodStart = lineStart;
        if (end - lineStart >= 4 && b.getInt(lineStart) == GET_SP) {
            r.method = Methods.GET;
            r.methodEnd = lineStart + 3;
            return lineStart + 4;
        }
        int p = lineStart;
        while (true) {
            if (p >= end) {
                return needMoreInRequestLine(lineStart, end);
            }
            int c = b.get(p) & 0xFF;
            if (c == ' ') {
                break;
            }
            if (!HttpTokens.TCHAR[c]) {
                return -400;
            }
            p++;
        }
        if (p == lineStart) {
            return -400;
        }
        r.methodEnd = p;
        r.method = Methods.id(b, lineStart, p);
        return p + 1;
    }

    /**
     * The request-target from {@code targetStart} to its SP, a word at a time: the query's start noted,
     * every byte checked, the form classified (RFC 9112 §3.2). Returns the version's first index.
     */
    private int target(ByteBuffer b, int lineStart, int targetStart, int end, RequestHead r) {
        int p = targetStart;
        int last = end - 8;
        while (true) {
            int c;
            long w = 0;
            long special = 0;
            while (p <= last) {
                w = Swar.word(b, p);
                special = Swar.targetStopMask(w);
                if (special != 0) {
                    break;
                }
                p += 8;
            }
            if (special != 0) {
                int k = Swar.firstIndex(special);
                p += k;
                c = byteAt(w, k);
            } else if (p < end) {
                c = b.get(p) & 0xFF;
            } else {
                return needMoreInRequestLine(lineStart, end);
            }
            if (c == ' ') {
                break;
            }
            if (c == '?') {
                if (r.queryStart < 0) {
                    r.queryStart = p + 1;
                }
            } else if (!HttpTokens.TARGET[c]) {
                return -400;
            }
            p++;
        }
        if (p == targetStart) {
            return -400;
        }
        if (r.method == Methods.CONNECT) {
            return -501; // before the target's form: CONNECT's authority-form is no form we accept
        }
        int pathEnd = r.queryStart < 0 ? p : r.queryStart - 1;
        int status = TargetForm.classify(b, targetStart, pathEnd, r);
        if (status != 0) {
            return -status;
        }
        r.pathEnd = pathEnd;
        r.targetEnd = p;
        return p + 1;
    }

    /**
     * The HTTP-version and the request line's CRLF from {@code p}: the two usual versions by one word
     * compare, others judged left to right ({@link #otherVersion}); an incomplete version is answered
     * as soon as it can no longer be one ({@link #partialVersion}). Returns the first field line's index.
     */
    private int version(ByteBuffer b, int lineStart, int p, int end, RequestHead r) {
        if (p - lineStart + 8 > maxRequestLine) {
            return -414;
        }
        if (end - p < 10) {
            // The line's length is known to fit: only its version and CRLF are missing. Answer as soon
            // as the bytes so far can no longer begin HTTP/1.0 or HTTP/1.1 (no waiting on "HTTP/5.6").
            int early = partialVersion(b, p, end);
            return early != 0 ? early : NEED_MORE;
        }
        long v = b.getLong(p);
        if (v == HTTP_1_1) {
            r.version = 11;
        } else if (v == HTTP_1_0) {
            r.version = 10;
        } else {
            int version = otherVersion(b, p);
            if (version < 0) {
                return version;
            }
            r.version = version;
        }
        if (b.getShort(p + 8) != CRLF) {
            return -400;
        }
        if (r.asteriskForm && r.method != Methods.OPTIONS) {
            return -400;
        }
        return p + 10;
    }

    // The word a line's scan stopped in (colon: the name's) and the stopping byte's index in it (8: read
    // alone), for the steps that take the bytes around it from the word (the space after the colon, CR LF).
    private long word;
    private int wordIndex;
    private long colonWord;
    private int colonIndex;

    /** The field name (a token) from {@code p}; returns the colon's index, its word in {@link #colonWord}. */
    private int fieldName(ByteBuffer b, int p, int end) {
        int ns = p;
        long w = 0;
        int k;
        int c;
        int last = end - 8;
        while (true) {
            long unusual = 0;
            while (p <= last) {
                w = Swar.word(b, p);
                unusual = Swar.notAlnumDashMask(w);
                if (unusual != 0) {
                    break;
                }
                p += 8;
            }
            if (unusual != 0) {
                k = Swar.firstIndex(unusual);
                p += k;
                c = byteAt(w, k);
            } else if (p < end) {
                k = 8;
                c = b.get(p) & 0xFF;
            } else {
                return NEED_MORE;
            }
            if (c == ':') {
                break;
            } else if (HttpTokens.TCHAR[c]) {
                p++;
            } else {
                return -400; // includes whitespace before the colon, RFC 9112 §5.1
            }
        }
        if (p == ns) {
            return -400;
        }
        colonWord = w;
        colonIndex = k;
        return p;
    }

    /** Skips the OWS after the colon (at {@code p - 1}); the usual single space is read from the colon's word. */
    private int valueStart(ByteBuffer b, int p, int end) {
        long w = colonWord;
        int k = colonIndex;
        int c;
        if (k < 6 && byteAt(w, k + 1) == ' ' && (c = byteAt(w, k + 2)) != ' ' && c != '\t') {
            return p + 1; // the usual single space after the colon
        }
        if (k < 7 && (c = byteAt(w, k + 1)) != ' ' && c != '\t') {
            return p; // no whitespace after the colon
        }
        if (k >= 6) { // the two bytes after the colon are not in its word: one load (the line's CR LF follow them)
            int two = b.getShort(p);
            if ((two & 0xFF) == ' ' && (c = two >>> 8 & 0xFF) != ' ' && c != '\t') {
                return p + 1;
            }
        }
        while (p < end && ((c = b.get(p)) == ' ' || c == '\t')) {
            p++;
        }
        return p;
    }

    /**
     * The field line from its first byte {@code p} to its CR, every byte checked for controls (a value
     * may hold HTAB and no other, RFC 9110 §5.5; the name's own scan rejects HTAB), and the LF after
     * the CR; returns the CR's index, its word in {@link #word}.
     */
    private int lineEnd(ByteBuffer b, int p, int end) {
        long w = 0;
        int k;
        int c;
        int last = end - 8;
        while (true) {
            long controls = 0;
            while (p <= last) { // the word loop: a load and a mask per eight bytes, nothing else
                w = Swar.word(b, p);
                controls = Swar.controlMask(w);
                if (controls != 0) {
                    break;
                }
                p += 8;
            }
            if (controls != 0) {
                k = Swar.firstIndex(controls);
                p += k;
                c = byteAt(w, k);
            } else if (p < end) {
                k = 8;
                c = b.get(p) & 0xFF;
            } else {
                return NEED_MORE;
            }
            if (c == '\r') {
                break;
            }
            if (!HttpTokens.FIELD_VALUE[c]) {
                return -400; // NUL, bare LF, other controls, DEL
            }
            p++;
        }
        if (k < 7) {
            if (byteAt(w, k + 1) != '\n') {
                return -400; // bare CR
            }
        } else {
            if (p + 1 >= end) {
                return NEED_MORE;
            }
            if (b.get(p + 1) != '\n') {
                return -400; // bare CR
            }
        }
        word = w;
        wordIndex = k;
        return p;
    }

    /** The value's end before trailing OWS; the byte before the CR is read from the CR's word when it is there. */
    private int valueEnd(ByteBuffer b, int vs, int cr) {
        int ve = cr;
        int k = wordIndex;
        int c;
        if (ve > vs && ((c = (k > 0 && k < 8) ? byteAt(word, k - 1) : b.get(ve - 1)) == ' ' || c == '\t')) {
            ve--;
            while (ve > vs && ((c = b.get(ve - 1)) == ' ' || c == '\t')) {
                ve--;
            }
        }
        return ve;
    }

    /** Byte {@code k} (0 to 7) of a little-endian word, unsigned. */
    private static int byteAt(long w, int k) {
        return (int) (w >>> (k << 3)) & 0xFF;
    }

    /** Most empty lines (CRLF) ignored before a request line (RFC 9112 §2.2 SHOULD ignore at least one). */
    public static final int MAX_EMPTY_LINES = 8;

    /**
     * Skips the empty lines (CRLF) before a request line, as RFC 9112 §2.2 asks (a client may send one
     * after a POST body), at most {@link #MAX_EMPTY_LINES}.
     *
     * @return the index of the request line's first byte (which may be {@code end}), {@link #NEED_MORE}
     *     when the input ends inside a CRLF, or -400 past the bound or for a bare CR
     */
    public static int skipEmptyLines(ByteBuffer b, int start, int end) {
        int p = start;
        int lines = 0;
        while (p < end && b.get(p) == '\r') {
            if (p + 1 >= end) {
                return NEED_MORE;
            }
            if (b.get(p + 1) != '\n' || ++lines > MAX_EMPTY_LINES) {
                return -400;
            }
            p += 2;
        }
        return p;
    }

    /**
     * The answer due for an incomplete version {@code [p, end)} (fewer than 10 bytes): 0 while it can
     * still become {@code HTTP/1.x CRLF}, -505 once its major digit is another, -400 once it cannot be a
     * version at all.
     */
    private static int partialVersion(ByteBuffer b, int p, int end) {
        for (int i = p; i < end && i < p + 8; i++) {
            int c = b.get(i);
            int at = i - p;
            boolean ok = at < 5 ? c == "HTTP/".charAt(at) : at == 6 ? c == '.' : isDigit((byte) c);
            if (!ok) {
                return -400;
            }
            if (at == 5 && c != '1') {
                return -505;
            }
        }
        return 0;
    }

    /**
     * A version other than the two fast-path words: HTTP/1.x with another minor is served as 1.1
     * (RFC 9110 §2.5); otherwise the first byte that breaks {@code HTTP/d.d}, read left to right,
     * decides (400, or 505 at a major digit other than 1), exactly as {@link #partialVersion} decides
     * on fewer bytes, so that any split of the input gives the same answer.
     */
    private static int otherVersion(ByteBuffer b, int p) {
        int r = partialVersion(b, p, p + 8);
        return r != 0 ? r : 11;
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private int needMoreInRequestLine(int start, int end) {
        return end - start > maxRequestLine ? -414 : NEED_MORE;
    }

    private int needMoreInHeaders(int start, int end) {
        return end - start > maxHeadSize ? -431 : NEED_MORE;
    }

    /**
     * Looks for the end of a head in {@code [from, end)} without parsing it, for input that arrives in
     * pieces. {@code from} may be where the previous look stopped: the search backs up three bytes so
     * that a CRLFCRLF split across arrivals is found.
     *
     * @return the index just past CRLFCRLF, {@link #NEED_MORE}, or {@code 0} when a bare LF was seen
     *     (the caller then runs {@link #parse}, which rejects it)
     */
    public static int findHeadEnd(ByteBuffer b, int start, int from, int end) {
        int p = Math.max(start, from - 3);
        long lf = Swar.broadcast('\n');
        while (p < end) {
            if (p + 8 <= end) {
                long mask = Swar.equalMask(b.getLong(p), lf);
                if (mask == 0) {
                    p += 8;
                    continue;
                }
                p += Swar.firstIndex(mask);
            } else if (b.get(p) != '\n') {
                p++;
                continue;
            }
            // b[p] is LF
            if (p == start || b.get(p - 1) != '\r') {
                return 0;
            }
            if (p - 3 >= start && b.get(p - 2) == '\n' && b.get(p - 3) == '\r') {
                return p + 1;
            }
            p++;
        }
        return NEED_MORE;
    }

    /** Longest request line, bytes. */
    public int maxRequestLine() {
        return maxRequestLine;
    }

    /** Longest head, bytes. */
    public int maxHeadSize() {
        return maxHeadSize;
    }
}
