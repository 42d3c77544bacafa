package dev.peregrine.http1;

import dev.peregrine.buffer.HttpTokens;

import dev.peregrine.buffer.Ascii;
import dev.peregrine.buffer.Swar;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Parses one response head — the status line and the header fields up to the empty line — for a
 * {@link ResponseReader}, in one pass: every byte is looked at once as it arrives, and a head that
 * arrives in pieces is resumed where the previous piece stopped, never scanned again. Positions are
 * kept relative to the head's first byte, so the caller may move the unfinished head to another buffer
 * between pieces (it offers the bytes again from that first byte, with more).
 *
 * <p>The status line has a fixed layout (RFC 9112 §4), judged at each position as soon as its byte is
 * in, so a peer that is not an HTTP server is refused at its first wrong byte:
 * <pre>
 *   offset  0 1 2 3 4 5 6 7  8  9 10 11  12  13 ...       CR LF
 *           H T T P / 1 . d  SP d  d  d  SP  reason phrase
 *                                       \-- CR LF (no reason, no SP: tolerated)
 * </pre>
 * Then one phase per byte class, the hot ones (a name, a value, the reason) a word at a time
 * ({@link Swar}: eight bytes per step, one by one only where a word holds a byte of interest):
 * <pre>
 *   STATUS -SP-&gt; REASON -CR-&gt; STATUS_LF -LF-&gt; LINE_START -CR-&gt; END_LF -LF-&gt; done
 *     \-CR (offset 12)-&gt; STATUS_LF          |-tchar-&gt; NAME -":"-&gt; VALUE_LEAD -OWS*-&gt; VALUE -CR-&gt; VALUE_LF -LF-&gt; LINE_START
 *                                           \-SP/HTAB: obs-fold -&gt; FOLD -non-OWS-&gt; VALUE of the field above
 * </pre>
 * A field is kept only when the next line's first byte shows it is over: a line that starts with SP
 * or HTAB continues it (obs-fold). RFC 9112 §5.2 has a user agent replace each obs-fold with SP before
 * interpreting the value, so the fold (the CR LF and the whitespace after it) is overwritten with SP in
 * the buffer and the value scan goes on over it: the field's value is the lines joined by spaces, and a
 * folded framing field frames by its whole value. Folding before the first field is refused (RFC 9112 §2.2).
 * The verdict on bad input is the first wrong byte's, read left to right, so it is the same however
 * the bytes were split. Rejections (all end the response with a reason):
 * <table>
 *   <caption>rejections</caption>
 *   <tr><th>input</th><th>reason starts with</th><th>rule</th></tr>
 *   <tr><td>not {@code HTTP/1.x SP}, or a 4th digit or other byte at offset 12</td><td>malformed status line</td><td>RFC 9112 §4</td></tr>
 *   <tr><td>a status code that is not three digits</td><td>malformed status code</td><td>RFC 9112 §4</td></tr>
 *   <tr><td>a code below 100</td><td>status code below 100</td><td>RFC 9110 §15</td></tr>
 *   <tr><td>a control (not HTAB) in the reason</td><td>control character in the reason phrase</td><td>RFC 9112 §4</td></tr>
 *   <tr><td>a status line longer than {@link #MAX_STATUS_LINE}; a head longer than {@code maxHeadSize}</td><td>status line longer / response head larger</td><td></td></tr>
 *   <tr><td>a line ended by LF alone, or a CR not followed by LF</td><td>malformed status line / malformed header field</td><td>RFC 9112 §2.2</td></tr>
 *   <tr><td>a name that is not a token, whitespace before the colon, no colon, an empty name</td><td>malformed header field</td><td>RFC 9112 §5.1</td></tr>
 *   <tr><td>the first field line starting with SP or HTAB</td><td>obsolete line folding</td><td>RFC 9112 §2.2</td></tr>
 *   <tr><td>NUL, DEL or another control in a value</td><td>invalid byte</td><td>RFC 9110 §5.5</td></tr>
 * </table>
 * The framing fields ({@code Content-Length}, {@code Transfer-Encoding}) are noted as each field ends;
 * {@link ResponseReader} decides the framing from them once the head is whole.
 *
 * <p>Thread: the reader's (the connection's loop thread).
 */
final class ResponseHead {
    static final int NEED_MORE = ResponseReader.NEED_MORE;
    static final int ERROR = ResponseReader.ERROR;
    /** Longest status line, CRLF excluded. */
    static final int MAX_STATUS_LINE = 8 * 1024;

    private static final int STATUS = 0;
    private static final int REASON = 1;
    private static final int STATUS_LF = 2;
    private static final int LINE_START = 3;
    private static final int NAME = 4;
    private static final int VALUE_LEAD = 5;
    private static final int VALUE = 6;
    private static final int VALUE_LF = 7;
    private static final int END_LF = 8;
    private static final int FOLD = 9;

    private static final long HTTP_1_1 = Ascii.packLong("HTTP/1.1");
    private static final long HTTP_1_0 = Ascii.packLong("HTTP/1.0");
    private static final long DEL = Swar.broadcast(0x7F);
    /** Offset of the reason phrase in the status line. */
    private static final int REASON_AT = 13;
    /** A constant, not a literal in the method: that would be a new array for every response read. */
    private static final byte[] HTTP_1_PREFIX = {'H', 'T', 'T', 'P', '/', '1', '.'};

    private final int maxHeadSize;
    final ResponseFields fields = new ResponseFields();

    // Where the parse stands, offsets from the head's first byte.
    private int phase;
    private int rel;
    private int lineRel;
    private int colonRel;
    private int valueRel;
    private int valueEndRel;

    private int code;
    private String reason;
    private String contentLength;
    private boolean conflictingLengths;
    private String transferEncoding;
    private String error;
    /** Whether the error is the head's size (status line or head too long), not its bytes. */
    private boolean tooLarge;
    /** The status line says HTTP/1.0 (RFC 9112 §9.3: then the connection persists only on keep-alive). */
    private boolean http10;
    /** A field line ended (VALUE_LF) and is kept when the next line shows it is not folded. */
    private boolean fieldPending;

    ResponseHead(int maxHeadSize) {
        this.maxHeadSize = maxHeadSize;
    }

    /** Forgets the head in progress: the next {@link #parse} starts a new one. */
    void reset() {
        phase = STATUS;
        rel = 0;
        code = 0;
        contentLength = null;
        conflictingLengths = false;
        transferEncoding = null;
        error = null;
        tooLarge = false;
        http10 = false;
        fieldPending = false;
        fields.clear();
    }

    /**
     * Parses on from where the last call stopped, the head starting at {@code pos} of {@code b} and
     * bytes up to {@code end} there.
     *
     * @return the index just past the head's empty line, {@link #NEED_MORE} or {@link #ERROR}
     */
    int parse(ByteBuffer b, int pos, int end) {
        boolean le = b.order() == ByteOrder.LITTLE_ENDIAN;
        int lim = (int) Math.min(end, (long) pos + maxHeadSize); // bytes past lim cannot be this head's
        int p = pos + rel;
        int ph = phase;
        if (ph <= STATUS_LF) {
            p = statusLine(b, pos, p, end, lim, le);
            if (p < 0) {
                return p;
            }
            ph = LINE_START;
        }
        // One field per turn; each case falls through to the next part of the line. A phase is only
        // stored when the bytes run out (stop), for the next call to resume there.
        int c;
        while (true) {
            switch (ph) {
                case LINE_START:
                    if (p >= lim) {
                        return stop(LINE_START, pos, p, end);
                    }
                    c = b.get(p) & 0xFF;
                    if (c == ' ' || c == '\t') {
                        if (!fieldPending) {
                            return fail("obsolete line folding in a header field");
                        }
                        b.put(p - 2, (byte) ' ').put(p - 1, (byte) ' '); // RFC 9112 §5.2: obs-fold becomes SP
                        ph = FOLD;
                        continue;
                    }
                    if (fieldPending) {
                        fieldPending = false;
                        field(b, pos);
                    }
                    if (c == '\r') {
                        ph = END_LF;
                        p++;
                        continue;
                    }
                    lineRel = p - pos;
                    // fall through
                case NAME:
                    while (true) {
                        if (p + 8 <= lim) {
                            long unusual = Swar.notAlnumDashMask(word(b, p, le));
                            if (unusual == 0) {
                                p += 8;
                                continue;
                            }
                            p += Swar.firstIndex(unusual); // still below lim: the byte of interest
                        } else if (p >= lim) {
                            return stop(NAME, pos, p, end);
                        }
                        c = b.get(p) & 0xFF;
                        if (HttpTokens.TCHAR[c]) {
                            p++;
                        } else if (c == ':' && p - pos > lineRel) {
                            break;
                        } else {
                            return fail(c == ':' ? "malformed header field: an empty name"
                                    : c == '\r' ? "malformed header field: a line without a colon"
                                    : c == '\n' ? "malformed header field: a line ended by a bare LF"
                                    : "malformed header field name"); // whitespace before the colon too (RFC 9112 §5.1)
                        }
                    }
                    colonRel = p - pos;
                    p++;
                    // fall through
                case VALUE_LEAD:
                    while (true) {
                        if (p >= lim) {
                            return stop(VALUE_LEAD, pos, p, end);
                        }
                        c = b.get(p);
                        if (c != ' ' && c != '\t') {
                            break;
                        }
                        p++;
                    }
                    valueRel = p - pos;
                    // fall through
                case VALUE:
                    while (true) {
                        if (p + 8 <= lim) {
                            long w = word(b, p, le);
                            long controls = Swar.lessMask(w, 0x20) | Swar.equalMask(w, DEL);
                            if (controls == 0) {
                                p += 8;
                                continue;
                            }
                            p += Swar.firstIndex(controls);
                        } else if (p >= lim) {
                            return stop(VALUE, pos, p, end);
                        }
                        c = b.get(p) & 0xFF;
                        if (c == '\r') {
                            break;
                        }
                        if (!HttpTokens.FIELD_VALUE[c]) {
                            return fail(c == '\n' ? "malformed header field: a line ended by a bare LF"
                                    : "invalid byte 0x" + Integer.toHexString(c) + " in a header field value");
                        }
                        p++;
                    }
                    int ve = p;
                    while (ve > pos + valueRel && ((c = b.get(ve - 1)) == ' ' || c == '\t')) {
                        ve--; // trailing OWS, only ever a few bytes back
                    }
                    valueEndRel = ve - pos;
                    p++;
                    // fall through
                case VALUE_LF:
                    if (p >= lim) {
                        return stop(VALUE_LF, pos, p, end);
                    }
                    if (b.get(p) != '\n') {
                        return fail("malformed header field: a CR not followed by LF");
                    }
                    fieldPending = true; // kept at the next line's first byte, unless that folds it
                    p++;
                    ph = LINE_START;
                    continue;
                case FOLD: // the fold's whitespace becomes SP too
                    while (true) {
                        if (p >= lim) {
                            return stop(FOLD, pos, p, end);
                        }
                        c = b.get(p);
                        if (c == '\t') {
                            b.put(p, (byte) ' ');
                        } else if (c != ' ') {
                            break;
                        }
                        p++;
                    }
                    if (valueEndRel == valueRel) {
                        valueRel = p - pos; // nothing before the fold: the value starts after it
                    }
                    ph = VALUE;
                    continue;
                default: // END_LF
                    if (p >= lim) {
                        return stop(END_LF, pos, p, end);
                    }
                    if (b.get(p) != '\n') {
                        return fail("malformed header field: a CR not followed by LF");
                    }
                    rel = p + 1 - pos;
                    return p + 1;
            }
        }
    }

    /**
     * The status line from {@code p} on; returns the index after its CRLF, {@link #NEED_MORE} or
     * {@link #ERROR}.
     */
    private int statusLine(ByteBuffer b, int pos, int p, int end, int lim, boolean le) {
        int slim = Math.min(lim, pos + MAX_STATUS_LINE + 2);
        while (true) {
            if (p >= slim) {
                rel = p - pos;
                return p < end ? failSize(slim < lim ? "status line longer than " + MAX_STATUS_LINE + " bytes"
                        : "response head larger than " + maxHeadSize + " bytes") : NEED_MORE;
            }
            int at = p - pos;
            int c;
            switch (phase) {
                case STATUS:
                    if (at == 0 && p + 8 <= slim) {
                        long w = word(b, p, le);
                        if (w == HTTP_1_1 || w == HTTP_1_0) {
                            http10 = w == HTTP_1_0;
                            p += 8;
                            continue;
                        }
                    }
                    c = b.get(p) & 0xFF;
                    if (at < 7 ? c != HTTP_1_PREFIX[at] : at == 7 ? c != '0' && c != '1' : at == 8 && c != ' ') {
                        return failStatus(b, pos, p, c);
                    }
                    if (at == 7) {
                        http10 = c == '0';
                    }
                    if (at >= 9 && at <= 11) {
                        int d = c - '0';
                        if (d < 0 || d > 9) {
                            return c == '\r' || c == '\n' ? failStatus(b, pos, p, c)
                                    : fail("malformed status code: " + ResponseFields.printable(b, pos, p + 1));
                        }
                        code = code * 10 + d;
                    } else if (at == 12) {
                        if (c != ' ' && c != '\r') {
                            return failStatus(b, pos, p, c);
                        }
                        if (code < 100) {
                            return fail("status code below 100: " + code);
                        }
                        if (c == '\r') {
                            reason = "";
                            phase = STATUS_LF;
                        } else {
                            phase = REASON;
                        }
                    }
                    p++;
                    continue;
                case REASON:
                    if (p + 8 <= slim) {
                        long w = word(b, p, le);
                        long controls = Swar.lessMask(w, 0x20) | Swar.equalMask(w, DEL);
                        if (controls == 0) {
                            p += 8;
                            continue;
                        }
                        p += Swar.firstIndex(controls);
                    }
                    c = b.get(p) & 0xFF;
                    if (c == '\r') {
                        reason = p - pos > REASON_AT ? fields.reason(b, pos + REASON_AT, p) : "";
                        phase = STATUS_LF;
                    } else if (c == '\n') {
                        return failStatus(b, pos, p, c);
                    } else if (c != '\t' && (c < 0x20 || c == 0x7F)) {
                        return fail("control character in the reason phrase");
                    }
                    p++;
                    continue;
                default: // STATUS_LF
                    if (b.get(p) != '\n') {
                        return fail("malformed status line: a CR not followed by LF");
                    }
                    phase = LINE_START;
                    return p + 1;
            }
        }
    }

    /** A field's line ended: keeps it, and notes it when it frames the body. */
    private void field(ByteBuffer b, int pos) {
        int kind = fields.add(b, pos + lineRel, pos + colonRel, pos + valueRel, pos + valueEndRel);
        if (kind == ResponseFields.CONTENT_LENGTH) {
            String value = fields.values.get(fields.values.size - 1);
            if (contentLength == null) {
                contentLength = value;
            } else if (!contentLength.equals(value)) {
                conflictingLengths = true;
            }
        } else if (kind == ResponseFields.TRANSFER_ENCODING) {
            String value = fields.values.get(fields.values.size - 1);
            transferEncoding = transferEncoding == null ? value : transferEncoding + "," + value;
        }
    }

    /** The bytes ran out at {@code p} in phase {@code ph}: NEED_MORE while they end there, else the head is too large. */
    private int stop(int ph, int pos, int p, int end) {
        phase = ph;
        rel = p - pos;
        return p < end ? failSize("response head larger than " + maxHeadSize + " bytes") : NEED_MORE;
    }

    private int failSize(String why) {
        tooLarge = true;
        return fail(why);
    }

    private int failStatus(ByteBuffer b, int pos, int p, int c) {
        return fail(c == '\n' ? "malformed status line: a line ended by a bare LF"
                : "malformed status line: " + ResponseFields.printable(b, pos, p + 1));
    }

    private int fail(String why) {
        error = why;
        return ERROR;
    }

    private static long word(ByteBuffer b, int p, boolean littleEndian) {
        long w = b.getLong(p);
        return littleEndian ? w : Long.reverseBytes(w);
    }

    /** The status code, once the head is parsed. */
    int code() {
        return code;
    }

    String reason() {
        return reason;
    }

    /** The first Content-Length value, or null. */
    String contentLength() {
        return contentLength;
    }

    /** Whether two Content-Length fields differ. */
    boolean conflictingLengths() {
        return conflictingLengths;
    }

    /** The Transfer-Encoding fields' values joined with commas, or null. */
    String transferEncoding() {
        return transferEncoding;
    }

    String error() {
        return error;
    }

    /** Whether the error was the head's size. */
    boolean tooLarge() {
        return tooLarge;
    }

    /** Whether the status line said HTTP/1.0. */
    boolean http10() {
        return http10;
    }
}
