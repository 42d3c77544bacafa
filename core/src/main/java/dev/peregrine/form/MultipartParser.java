package dev.peregrine.form;

import dev.peregrine.buffer.Swar;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A streaming {@code multipart/form-data} parser (RFC 7578, framing by RFC 2046 §5.1.1): a pure codec
 * fed the body in pieces of any size with {@link #feed}, then told the body ended with {@link #finish};
 * it calls a {@link PartListener} as parts begin, carry data and end. It holds no more than one part's
 * header block and the bytes of a delimiter that may be starting, whatever the body's size.
 *
 * <pre>
 *   PREAMBLE --(CRLF)"--"boundary--&gt; AFTER_DELIMITER --"--"--&gt; CLOSE_DASH --'-'--&gt; EPILOGUE (ignored)
 *      (ignored; the body's first       |  padding (SP, HTAB) stays
 *       line may be the delimiter)      '--CRLF--&gt; HEADERS --empty line--&gt; DATA
 *                                                    ^                       |
 *                                                    '---- AFTER_DELIMITER &lt;-' CRLF"--"boundary
 * </pre>
 * The delimiter is {@code CRLF "--" boundary}; since CR occurs in it only first, a partial match that
 * fails is data up to where it failed, and the byte that failed starts a new match only if it is CR.
 * Data pieces are views of the fed buffer, or of the delimiter's own bytes for a partial match that
 * turned out to be data: no copy.
 *
 * <table>
 *   <caption>rejections</caption>
 *   <tr><th>input</th><th>exception</th><th>rule</th></tr>
 *   <tr><td>boundary empty, over 70 bytes or outside bchars</td><td>{@link IllegalArgumentException} (at construction)</td><td>RFC 2046 §5.1.1</td></tr>
 *   <tr><td>no delimiter before the end; end before the close delimiter</td><td>{@link BadFormException}</td><td>RFC 2046 §5.1.1</td></tr>
 *   <tr><td>a delimiter followed by anything but padding and CRLF or "--"</td><td>{@link BadFormException}</td><td>RFC 2046 §5.1.1</td></tr>
 *   <tr><td>a part without {@code Content-Disposition: form-data; name}</td><td>{@link BadFormException}</td><td>RFC 7578 §4.2</td></tr>
 *   <tr><td>more parts, a larger header block or part than {@link MultipartLimits}</td><td>{@link FormLimitException}</td><td>413</td></tr>
 * </table>
 * After an exception the parser is dead: further calls throw the same kind again.
 *
 * <p>Thread: one thread at a time (the one feeding it).
 */
public final class MultipartParser {
    private enum State { PREAMBLE, AFTER_DELIMITER, CLOSE_DASH, PADDING_LF, HEADERS, DATA, EPILOGUE, FAILED }

    private final byte[] delimiter;
    private final ByteBuffer delimiterView;
    private final PartListener listener;
    private final MultipartLimits limits;
    private final byte[] headerBlock;

    private State state = State.PREAMBLE;
    /** Delimiter bytes matched so far (in PREAMBLE and DATA). */
    private int matched = 2; // the body's first line may be the delimiter: as if a CRLF came before it
    private int headerLength;
    private int parts;
    private long partSize;
    private long partLimit;
    private RuntimeException failure;

    /**
     * @param boundary the {@code boundary} parameter of the body's {@code Content-Type}
     * @throws IllegalArgumentException for a boundary RFC 2046 §5.1.1 does not allow
     */
    public MultipartParser(String boundary, MultipartLimits limits, PartListener listener) {
        checkBoundary(boundary);
        byte[] b = boundary.getBytes(StandardCharsets.US_ASCII);
        delimiter = new byte[b.length + 4];
        delimiter[0] = '\r';
        delimiter[1] = '\n';
        delimiter[2] = '-';
        delimiter[3] = '-';
        System.arraycopy(b, 0, delimiter, 4, b.length);
        delimiterView = ByteBuffer.wrap(delimiter).asReadOnlyBuffer();
        this.limits = limits;
        this.listener = listener;
        this.headerBlock = new byte[limits.maxPartHeaderSize()];
    }

    /**
     * The boundary of a {@code multipart/form-data} Content-Type (quoted or not).
     *
     * @throws BadFormException when the type is not multipart/form-data (415) or has no usable boundary (400)
     */
    public static String boundaryOf(CharSequence contentType) {
        if (contentType == null) {
            throw BadFormException.unsupportedType("multipart()", null);
        }
        String t = contentType.toString();
        int semi = t.indexOf(';');
        String type = (semi < 0 ? t : t.substring(0, semi)).trim();
        if (!type.equalsIgnoreCase("multipart/form-data")) {
            throw BadFormException.unsupportedType("multipart()", t);
        }
        for (String param : t.substring(semi < 0 ? t.length() : semi + 1).split(";")) {
            int eq = param.indexOf('=');
            if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("boundary")) {
                String b = param.substring(eq + 1).trim();
                if (b.length() >= 2 && b.charAt(0) == '"' && b.charAt(b.length() - 1) == '"') {
                    b = b.substring(1, b.length() - 1);
                }
                try {
                    checkBoundary(b);
                } catch (IllegalArgumentException e) {
                    throw new BadFormException(e.getMessage());
                }
                return b;
            }
        }
        throw new BadFormException("multipart/form-data without a boundary parameter (RFC 7578 §4.1)");
    }

    private static void checkBoundary(String b) {
        if (b == null || b.isEmpty() || b.length() > 70 || b.charAt(b.length() - 1) == ' ') {
            throw new IllegalArgumentException("boundary must be 1 to 70 bchars, not ending in a space (RFC 2046 §5.1.1)");
        }
        for (int i = 0; i < b.length(); i++) {
            char c = b.charAt(i);
            boolean ok = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || "'()+_,-./:=? ".indexOf(c) >= 0;
            if (!ok) {
                throw new IllegalArgumentException("boundary has a character outside bchars (RFC 2046 §5.1.1): " + (int) c);
            }
        }
    }

    /**
     * Parses the remaining bytes of {@code data} (all of them; its position moves to its limit).
     *
     * @throws BadFormException when the body is malformed (see the class's table)
     * @throws FormLimitException when a part, a header block or the number of parts is past its limit
     * @throws Exception what the listener threw
     */
    public void feed(ByteBuffer data) throws Exception {
        checkAlive();
        try {
            int i = data.position();
            int end = data.limit();
            bufferStart = i;
            runStart = -1;
            while (i < end) {
                i = step(data, i, end);
            }
            if (state == State.DATA) {
                flushRun(data, end);
            }
            data.position(end);
        } catch (RuntimeException e) {
            fail(e);
        } catch (Exception e) {
            state = State.FAILED;
            failure = new IllegalStateException("multipart parse ended by its listener", e);
            throw e;
        }
    }

    /**
     * The body ended.
     *
     * @throws BadFormException when it ended before the close delimiter (a truncated body, or none)
     */
    public void finish() {
        checkAlive();
        if (state != State.EPILOGUE) {
            fail(new BadFormException(parts == 0 && state == State.PREAMBLE
                    ? "multipart body without its boundary delimiter (wrong or missing boundary)"
                    : "multipart body ended before its close delimiter (truncated)"));
        }
    }

    /** Whether the close delimiter has been read (what follows is ignored). */
    public boolean complete() {
        return state == State.EPILOGUE;
    }

    private void checkAlive() {
        if (state == State.FAILED) {
            if (failure instanceof FormLimitException f) {
                throw new FormLimitException(f.getMessage());
            }
            throw new BadFormException(failure == null ? "multipart parse failed" : failure.getMessage());
        }
    }

    private void fail(RuntimeException e) {
        state = State.FAILED;
        failure = e;
        throw e;
    }

    /** Start of the run of data bytes in the current buffer not yet given to the listener; -1 for none. */
    private int runStart = -1;

    /** Handles bytes from {@code i}; returns where to go on. */
    private int step(ByteBuffer data, int i, int end) throws Exception {
        switch (state) {
            case PREAMBLE:
            case DATA:
                return scan(data, i, end);
            case AFTER_DELIMITER: {
                byte b = data.get(i);
                if (b == '-') {
                    state = State.CLOSE_DASH;
                } else if (b == '\r') {
                    state = State.PADDING_LF;
                } else if (b != ' ' && b != '\t') {
                    throw new BadFormException("boundary delimiter followed by other text (RFC 2046 §5.1.1)");
                }
                return i + 1;
            }
            case CLOSE_DASH:
                if (data.get(i) != '-') {
                    throw new BadFormException("boundary delimiter followed by a single '-' (RFC 2046 §5.1.1)");
                }
                state = State.EPILOGUE;
                return i + 1;
            case PADDING_LF:
                if (data.get(i) != '\n') {
                    throw new BadFormException("boundary delimiter line not ended by CRLF (RFC 2046 §5.1.1)");
                }
                if (++parts > limits.maxParts()) {
                    throw new FormLimitException("more than " + limits.maxParts() + " multipart parts");
                }
                state = State.HEADERS;
                headerLength = 0;
                return i + 1;
            case HEADERS:
                return headers(data, i, end);
            case EPILOGUE:
                return end;
            default:
                throw new IllegalStateException(state.name());
        }
    }

    private int headers(ByteBuffer data, int i, int end) throws Exception {
        while (i < end) {
            byte b = data.get(i++);
            if (headerLength == headerBlock.length) {
                throw new FormLimitException("multipart part header block over " + headerBlock.length + " bytes");
            }
            if (headerLength > 0 && headerBlock[headerLength - 1] == '\r' && b != '\n') {
                throw new BadFormException("bare CR in a part's header block");
            }
            headerBlock[headerLength++] = b;
            if (b == '\n') {
                if (headerLength < 2 || headerBlock[headerLength - 2] != '\r') {
                    throw new BadFormException("bare LF in a part's header block");
                }
                boolean emptyLine = headerLength == 2
                        || headerLength >= 4 && headerBlock[headerLength - 3] == '\n' && headerBlock[headerLength - 4] == '\r';
                if (emptyLine) {
                    PartHeaders h = PartHeaders.parse(headerBlock, Math.max(0, headerLength - 4));
                    partSize = 0;
                    partLimit = h.isFile() ? limits.maxFileSize() : limits.maxFieldSize();
                    listener.onPartStart(h);
                    state = State.DATA;
                    matched = 0;
                    return i;
                }
            }
        }
        return i;
    }

    /**
     * PREAMBLE and DATA: look for the delimiter. Data bytes go to the listener in runs; a run ends where
     * a CR begins a possible delimiter. When the match fails, its bytes were data: those that arrived in
     * earlier buffers are given from the delimiter's own bytes (they equal its prefix), the rest start
     * the next run.
     */
    private int scan(ByteBuffer data, int i, int end) throws Exception {
        boolean isData = state == State.DATA;
        while (i < end) {
            if (matched == 0) {
                int cr = indexOfCr(data, i, end);
                if (isData && runStart < 0 && cr > i) {
                    runStart = i;
                }
                if (cr == end) {
                    return end;
                }
                if (isData && runStart >= 0 && cr > runStart) {
                    deliver(data, runStart, cr);
                }
                runStart = -1;
                matched = 1;
                i = cr + 1;
                continue;
            }
            byte b = data.get(i);
            if (b == delimiter[matched]) {
                matched++;
                i++;
                if (matched == delimiter.length) {
                    matched = 0;
                    if (isData) {
                        listener.onPartEnd();
                    }
                    state = State.AFTER_DELIMITER;
                    return i;
                }
                continue;
            }
            if (isData) {
                int matchStart = i - matched;
                int held = matchStart < bufferStart ? bufferStart - matchStart : 0;
                if (held > 0) {
                    deliver(delimiterView, 0, held);
                }
                runStart = Math.max(bufferStart, matchStart);
            }
            matched = 0; // b is looked at again: a CR starts a new match
        }
        return i;
    }

    /** The index of the first CR in {@code [i, end)}, or {@code end}; eight bytes at a time ({@link Swar}). */
    private static int indexOfCr(ByteBuffer data, int i, int end) {
        boolean littleEndian = data.order() == ByteOrder.LITTLE_ENDIAN;
        while (i + 8 <= end) {
            long word = data.getLong(i);
            long mask = Swar.equalMask(littleEndian ? word : Long.reverseBytes(word), CRS);
            if (mask != 0) {
                return i + Swar.firstIndex(mask);
            }
            i += 8;
        }
        while (i < end && data.get(i) != '\r') {
            i++;
        }
        return i;
    }

    private static final long CRS = Swar.broadcast('\r');

    /** Where the buffer being fed began (its position at {@link #feed}). */
    private int bufferStart;

    private void flushRun(ByteBuffer data, int end) throws Exception {
        if (runStart >= 0 && end > runStart) {
            deliver(data, runStart, end);
        }
        runStart = -1;
    }

    private void deliver(ByteBuffer src, int from, int to) throws Exception {
        partSize += to - from;
        if (partSize > partLimit) {
            throw new FormLimitException("multipart part over " + partLimit + " bytes");
        }
        ByteBuffer view = src.duplicate();
        view.limit(to).position(from);
        listener.onPartData(view);
    }
}
