package dev.peregrine.http1;

import dev.peregrine.buffer.HttpTokens;

import java.nio.ByteBuffer;

/**
 * Decodes a chunked request body (RFC 9112 §7.1) in place: chunk data is moved down over the framing
 * so that the decoded body ends up contiguous right after the head, ready to be viewed as one buffer.
 * Resumable: positions are kept relative to the request's first byte ({@code base}), so the caller
 * may move the unfinished request to another buffer between calls ({@link #compactInto}).
 *
 * <pre>
 *   before:  [head][5;ext\r\nhello\r\n][0\r\nTrailer: x\r\n\r\n]
 *   after:   [head][hello]......................................
 *                  ^bodyStart ^bodyEnd           message end^
 * </pre>
 *
 * <p>State machine, one byte at a time over the framing; chunk data is copied in bulk:
 * <pre>
 *   SIZE -hex-&gt; SIZE -[;ext]-&gt; EXT -CR-&gt; SIZE_LF -LF-&gt; DATA (size &gt; 0) -&gt; DATA_CR -&gt; DATA_LF -&gt; SIZE
 *                                                 \-&gt; TRAILER (size 0) -field CRLF-&gt; TRAILER ... -CRLF-&gt; done
 * </pre>
 * Limits: the decoded body may not exceed {@code maxBody} (413); a chunk-size line, extensions
 * included, may not exceed {@link #MAX_LINE} bytes (400); trailers together may not exceed
 * {@code maxTrailers} bytes (431). Trailer fields are validated like header fields and kept apart
 * from the body, copied as they pass (a trailer section may span reads, and the caller drops the
 * framing already decoded): {@link #trailerFields()} once the message ended. Nothing is allocated for
 * a body without trailers.
 *
 * <p>Thread: one event loop; one instance per connection that sends a chunked body.
 */
public final class ChunkedDecoder {
    /** More bytes are needed. */
    public static final int NEED_MORE = -1;
    /** Longest chunk-size line (size, extensions) in bytes. */
    public static final int MAX_LINE = 4096;

    // Phases in the order of the message: decode() hands a byte to the step that owns its range
    // (size line up to SIZE_LF, data's CRLF up to DATA_LF, trailers up to END_LF).
    private static final int SIZE = 0;
    private static final int EXT = 1;
    private static final int SIZE_LF = 2;
    private static final int DATA = 3;
    private static final int DATA_CR = 4;
    private static final int DATA_LF = 5;
    private static final int TRAILER_START = 6;
    private static final int TRAILER_NAME = 7;
    private static final int TRAILER_VALUE = 8;
    private static final int TRAILER_LF = 9;
    private static final int END_LF = 10;

    // Phases of the extensions after a chunk size (RFC 9112 §7.1.1):
    //   chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
    //   chunk-ext-val = token / quoted-string
    //   AFTER_SIZE -BWS-> AFTER_SIZE_BWS -;-> NAME_START -tchar-> NAME -BWS/=/;/CR-> ...
    //   after a name: '=' (VALUE_START), ';', CR, or BWS then '=' or ';' (AFTER_NAME)
    //   after a value: ';', CR, or BWS then ';' (AFTER_SIZE_BWS)
    //   VALUE_START -tchar-> TOKEN | -"-> QUOTED (qdtext, \ escapes) -"-> AFTER_VALUE
    // CR ends the line only where a complete extension (or none) stands: "5;", "a " and an open quote
    // at the line end are refused there and then.
    private static final int X_AFTER_SIZE = 0;
    private static final int X_AFTER_SIZE_BWS = 1;
    private static final int X_NAME_START = 2;
    private static final int X_NAME = 3;
    private static final int X_AFTER_NAME = 4;
    private static final int X_VALUE_START = 5;
    private static final int X_TOKEN = 6;
    private static final int X_QUOTED = 7;
    private static final int X_QUOTED_ESCAPE = 8;
    private static final int X_AFTER_VALUE = 9;
    /** {@link #extension}: the byte was the line's CR. */
    private static final int EXT_DONE = 1;

    private int state;
    private int readRel;
    private int writeRel;
    private int bodyStartRel;
    private long chunkRemaining;
    private int sizeDigits;
    /** Where {@link #extension} is in the chunk-size line after the size (the {@code X_*} phases). */
    private int extPhase = X_AFTER_SIZE;
    private int lineBytes;
    private int trailerBytes;
    private int nameLength;
    private long decoded;
    private boolean active;
    /** The trailer section so far, made at its first field: each field as {@code name:value\n}, the value as sent. */
    private byte[] trailerText;
    private int trailerLength;
    /** The trailer fields of the body that ended, name and value alternating; null when it had none. */
    private String[] trailerFields;

    /** Starts decoding a body that begins {@code bodyStartRel} bytes after the request's first byte. */
    public void start(int bodyStartRel) {
        state = SIZE;
        readRel = bodyStartRel;
        writeRel = bodyStartRel;
        this.bodyStartRel = bodyStartRel;
        chunkRemaining = 0;
        sizeDigits = 0;
        extPhase = X_AFTER_SIZE;
        lineBytes = 0;
        trailerBytes = 0;
        nameLength = 0;
        decoded = 0;
        active = true;
        trailerText = null;
        trailerLength = 0;
        trailerFields = null;
    }

    /**
     * The trailer fields (RFC 9112 §7.1.2) of the body whose end {@link #decode} returned, name and value
     * alternating, names as sent, values without surrounding whitespace; null when it had none (and until
     * it ended). Valid until the next {@link #start}.
     */
    public String[] trailerFields() {
        return trailerFields;
    }

    /** Whether a body is being decoded (between {@link #start} and its end or {@link #reset}). */
    public boolean active() {
        return active;
    }

    /** Forgets the body in progress. */
    public void reset() {
        active = false;
    }

    /** Decoded body start, relative to the request's first byte. */
    public int bodyStartRel() {
        return bodyStartRel;
    }

    /** Decoded bytes so far. */
    public int decodedLength() {
        return (int) decoded;
    }

    /**
     * Decodes what has arrived of the request starting at {@code base}, up to {@code end}.
     *
     * @return the message's length from {@code base} once its last CRLF is read, {@link #NEED_MORE},
     *     or {@code -status}
     */
    public int decode(ByteBuffer b, int base, int end, long maxBody, int maxTrailers) {
        int p = base + readRel;
        int w = base + writeRel;
        while (p < end) {
            int r;
            if (state == DATA) {
                int n = (int) Math.min(chunkRemaining, end - p);
                if (w != p) {
                    b.put(w, b, p, n); // w < p: memmove semantics, the source is this buffer
                }
                p += n;
                w += n;
                chunkRemaining -= n;
                decoded += n;
                if (chunkRemaining == 0) {
                    state = DATA_CR;
                }
                continue;
            }
            int c = b.get(p) & 0xFF;
            if (state <= SIZE_LF) {
                r = sizeLine(c, maxBody);
            } else if (state <= DATA_LF) {
                r = dataEnd(c);
            } else if (state != END_LF) {
                r = trailer(c, maxTrailers);
            } else {
                if (c != '\n') {
                    return -400;
                }
                p++;
                readRel = p - base;
                writeRel = w - base;
                active = false;
                if (trailerLength > 0) {
                    trailerFields = fields(trailerText, trailerLength);
                    trailerText = null;
                }
                return p - base;
            }
            if (r < 0) {
                return r;
            }
            p += r;
        }
        readRel = p - base;
        writeRel = w - base;
        return NEED_MORE;
    }

    /**
     * One byte {@code c} of a chunk-size line (SIZE, EXT, SIZE_LF): the hex size, its extensions, the
     * CRLF. Returns how many bytes it took (0: the byte starts the next phase), or {@code -status}.
     */
    private int sizeLine(int c, long maxBody) {
        switch (state) {
            case SIZE: {
                int h = HttpTokens.HEX[c];
                if (h < 0) {
                    if (sizeDigits == 0) {
                        return -400;
                    }
                    state = EXT;
                    return 0;
                }
                if (++sizeDigits > 15) {
                    return -413;
                }
                chunkRemaining = (chunkRemaining << 4) | h;
                if (decoded + chunkRemaining > maxBody) {
                    return -413;
                }
                lineBytes++;
                return 1;
            }
            case EXT: {
                int r = extension(c);
                if (r < 0) {
                    return r;
                }
                if (r == EXT_DONE) {
                    state = SIZE_LF;
                }
                return ++lineBytes > MAX_LINE ? -400 : 1;
            }
            default: // SIZE_LF
                if (c != '\n') {
                    return -400;
                }
                sizeDigits = 0;
                extPhase = X_AFTER_SIZE;
                lineBytes = 0;
                state = chunkRemaining == 0 ? TRAILER_START : DATA;
                return 1;
        }
    }

    /** One byte of the CRLF after a chunk's data (DATA_CR, DATA_LF); returns 1 or -400. */
    private int dataEnd(int c) {
        if (state == DATA_CR) {
            if (c != '\r') {
                return -400;
            }
            state = DATA_LF;
            return 1;
        }
        if (c != '\n') {
            return -400;
        }
        state = SIZE;
        return 1;
    }

    /**
     * One byte of the trailer section (TRAILER_START, TRAILER_NAME, TRAILER_VALUE, TRAILER_LF): fields
     * checked like header fields and discarded, their bytes counted against {@code maxTrailers}.
     * Returns how many bytes it took (0: the byte starts the next phase), or {@code -status}.
     */
    private int trailer(int c, int maxTrailers) {
        switch (state) {
            case TRAILER_START:
                if (c == '\r') {
                    state = END_LF;
                    return 1;
                }
                if (c == ' ' || c == '\t') {
                    return -400; // obs-fold
                }
                nameLength = 0;
                state = TRAILER_NAME;
                return 0;
            case TRAILER_NAME:
                if (HttpTokens.TCHAR[c]) {
                    nameLength++;
                } else if (c == ':' && nameLength > 0) {
                    state = TRAILER_VALUE;
                } else {
                    return -400;
                }
                return ++trailerBytes > maxTrailers ? -431 : keep(c);
            case TRAILER_VALUE:
                if (c == '\r') {
                    state = TRAILER_LF;
                    return ++trailerBytes > maxTrailers ? -431 : 1;
                } else if (!HttpTokens.FIELD_VALUE[c]) {
                    return -400;
                }
                return ++trailerBytes > maxTrailers ? -431 : keep(c);
            default: // TRAILER_LF
                if (c != '\n') {
                    return -400;
                }
                state = TRAILER_START;
                return keep('\n');
        }
    }

    /** Copies one byte of the trailer section ({@link #trailerText}); returns 1, the byte taken. */
    private int keep(int c) {
        if (trailerText == null) {
            trailerText = new byte[64];
        } else if (trailerLength == trailerText.length) {
            trailerText = java.util.Arrays.copyOf(trailerText, trailerLength * 2);
        }
        trailerText[trailerLength++] = (byte) c;
        return 1;
    }

    /** The fields of a trailer section kept as {@code name:value\n} lines: name, value (OWS trimmed, RFC 9110 §5.5), ... */
    private static String[] fields(byte[] text, int length) {
        int n = 0;
        for (int i = 0; i < length; i++) {
            if (text[i] == '\n') {
                n++;
            }
        }
        String[] f = new String[2 * n];
        int line = 0;
        for (int k = 0; k < n; k++) {
            int colon = line;
            while (text[colon] != ':') {
                colon++;
            }
            int eol = colon + 1;
            while (text[eol] != '\n') {
                eol++;
            }
            int from = colon + 1;
            int to = eol;
            while (from < to && (text[from] == ' ' || text[from] == '\t')) {
                from++;
            }
            while (to > from && (text[to - 1] == ' ' || text[to - 1] == '\t')) {
                to--;
            }
            f[2 * k] = new String(text, line, colon - line, java.nio.charset.StandardCharsets.ISO_8859_1);
            f[2 * k + 1] = new String(text, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1);
            line = eol + 1;
        }
        return f;
    }

    /**
     * Takes one byte of the chunk-size line after the size; returns 0 to go on, {@link #EXT_DONE} for
     * the line's CR, or -400.
     */
    private int extension(int c) {
        boolean ws = c == ' ' || c == '\t';
        switch (extPhase) {
            case X_AFTER_SIZE:
            case X_AFTER_SIZE_BWS:
                if (c == '\r' && extPhase == X_AFTER_SIZE) {
                    return EXT_DONE;
                }
                if (ws) {
                    extPhase = X_AFTER_SIZE_BWS; // BWS only before a ';'
                    return 0;
                }
                if (c == ';') {
                    extPhase = X_NAME_START;
                    return 0;
                }
                return -400;
            case X_NAME_START:
                if (ws) {
                    return 0;
                }
                if (HttpTokens.TCHAR[c]) {
                    extPhase = X_NAME;
                    return 0;
                }
                return -400; // ";" needs a name: "5;\r\n" is refused
            case X_NAME:
                if (HttpTokens.TCHAR[c]) {
                    return 0;
                }
                return afterName(c, ws);
            case X_AFTER_NAME:
                if (ws) {
                    return 0; // BWS after a name only before '=' or ';'
                }
                if (c == '=') {
                    extPhase = X_VALUE_START;
                    return 0;
                }
                if (c == ';') {
                    extPhase = X_NAME_START;
                    return 0;
                }
                return -400;
            case X_VALUE_START:
                if (ws) {
                    return 0;
                }
                if (c == '"') {
                    extPhase = X_QUOTED;
                    return 0;
                }
                if (HttpTokens.TCHAR[c]) {
                    extPhase = X_TOKEN;
                    return 0;
                }
                return -400;
            case X_TOKEN:
                if (HttpTokens.TCHAR[c]) {
                    return 0;
                }
                return afterValue(c, ws);
            case X_QUOTED:
                if (c == '"') {
                    extPhase = X_AFTER_VALUE;
                    return 0;
                }
                if (c == '\\') {
                    extPhase = X_QUOTED_ESCAPE;
                    return 0;
                }
                return c == '\t' || (c >= 0x20 && c != 0x7F) ? 0 : -400; // CR here: an unbalanced quote
            case X_QUOTED_ESCAPE:
                extPhase = X_QUOTED;
                return c == '\t' || (c >= 0x20 && c != 0x7F) ? 0 : -400;
            default: // X_AFTER_VALUE
                return afterValue(c, ws);
        }
    }

    /** The byte after a name: '=', ';', the line's CR, or BWS (then only '=' or ';' may follow). */
    private int afterName(int c, boolean ws) {
        if (c == '=') {
            extPhase = X_VALUE_START;
            return 0;
        }
        if (ws) {
            extPhase = X_AFTER_NAME;
            return 0;
        }
        return afterValue(c, false);
    }

    /** The byte after a value (or a name): ';', the line's CR, or BWS (then only ';' may follow). */
    private int afterValue(int c, boolean ws) {
        if (ws) {
            extPhase = X_AFTER_SIZE_BWS;
            return 0;
        }
        if (c == ';') {
            extPhase = X_NAME_START;
            return 0;
        }
        return c == '\r' ? EXT_DONE : -400;
    }

    /**
     * For a body handed on as it is decoded (a client's streamed response): the decoded bytes are at
     * {@code [base + bodyStartRel(), base + decodedEndRel())} after {@link #decode}.
     */
    public int decodedEndRel() {
        return writeRel;
    }

    /**
     * For a body handed on as it is decoded: the decoded bytes so far were taken, so everything read
     * up to here is consumed. Returns how many bytes from {@code base} that is; the next
     * {@link #decode} starts at {@code base} plus that, with nothing decoded before it.
     */
    public int consumeDecoded() {
        int n = readRel;
        readRel = 0;
        writeRel = 0;
        bodyStartRel = 0;
        return n;
    }

    /**
     * Copies the unfinished request at {@code [base, end)} of {@code src} to index 0 of {@code dst}
     * (which may be {@code src}), leaving out the framing already decoded, and rebases the state.
     *
     * @return the number of bytes now in {@code dst}
     */
    public int compactInto(ByteBuffer src, int base, int end, ByteBuffer dst) {
        if (src != dst || base != 0) {
            dst.put(0, src, base, writeRel);
        }
        int tail = end - (base + readRel);
        if (tail > 0) {
            dst.put(writeRel, src, base + readRel, tail);
        }
        readRel = writeRel;
        return writeRel + Math.max(tail, 0);
    }

    /** Bytes {@link #compactInto} would keep for the request at {@code [base, end)}. */
    public int compactedLength(int base, int end) {
        return writeRel + Math.max(0, end - (base + readRel));
    }
}
