package dev.peregrine.h2;

import dev.peregrine.buffer.Swar;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.h2.hpack.HpackDecoder;
import dev.peregrine.http1.RequestFields;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Checks a request's decoded fields against RFC 9113 §8.2-8.3 as the HPACK decoder produces them, and
 * lays them out so that the request view can be filled from them later, in the same buffer or in a
 * copy of it (a stream whose body is still to come). Each field is written by the decoder after a
 * {@link #PREFIX}-byte record this class fills:
 * <pre>
 *   [kind u8][name length u16][value offset from name u16][value length u16] name ... value ...
 *   kind: REGULAR, METHOD, PATH, AUTHORITY (its name bytes rewritten to "host", so req.header("Host")
 *         answers it too), SCHEME, SKIP (a Host field beside :authority, RFC 9113 §8.3.1)
 * </pre>
 * <b>Malformed</b> (a stream error PROTOCOL_ERROR, §8.1.1): an uppercase or non-token name; an unknown
 * pseudo-field, one after a regular field, one twice, or any in trailers; a connection-specific field
 * (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade) or TE other than
 * "trailers"; a value with NUL, CR or LF or leading/trailing whitespace; :method, :scheme or a
 * non-empty :path missing; content-length not digits. More fields than the view holds: too many (431).
 *
 * <p>Thread: the loop thread.
 */
final class RequestHeaders implements HpackDecoder.FieldSink {
    static final int PREFIX = 7;
    static final int REGULAR = 0;
    static final int METHOD = 1;
    static final int PATH = 2;
    static final int AUTHORITY = 3;
    static final int SCHEME = 4;
    static final int SKIP = 5;

    private static final byte[] HOST = {'h', 'o', 's', 't'};

    private boolean trailers;
    boolean malformed;
    boolean tooMany;
    private boolean regularSeen;
    private int pseudoSeen;
    private int count;
    private int maxFields;
    long contentLength;
    boolean connect;

    /** Starts a block: a request's head, or its trailers. */
    void begin(boolean trailers, int maxFields) {
        this.trailers = trailers;
        this.maxFields = maxFields;
        malformed = false;
        tooMany = false;
        regularSeen = false;
        pseudoSeen = 0;
        count = 0;
        contentLength = -1;
        connect = false;
    }

    /** After the block: whether the request's required fields were there (§8.3.1). */
    boolean complete() {
        if (trailers) {
            return !malformed;
        }
        if (connect) { // §8.5: :method and :authority only
            return !malformed && (pseudoSeen & (1 << SCHEME | 1 << PATH)) == 0 && (pseudoSeen & 1 << AUTHORITY) != 0;
        }
        return !malformed && (pseudoSeen & (1 << METHOD | 1 << SCHEME | 1 << PATH)) == (1 << METHOD | 1 << SCHEME | 1 << PATH);
    }

    @Override
    public void field(ByteBuffer b, int nameStart, int nameEnd, int valueStart, int valueEnd) {
        int kind = REGULAR;
        int nameLen = nameEnd - nameStart;
        if (nameLen == 0) {
            malformed = true;
        } else if (b.get(nameStart) == ':') {
            kind = pseudo(b, nameStart, nameLen);
            if (kind < 0 || trailers || regularSeen || (pseudoSeen & 1 << kind) != 0) {
                malformed = true; // §8.3: unknown, in trailers, after a regular field, or twice
                kind = SKIP;
            } else {
                pseudoSeen |= 1 << kind;
                if (kind == METHOD && valueEnd - valueStart == 7 && equals(b, valueStart, "CONNECT")) {
                    connect = true;
                }
                if (kind == PATH && valueEnd == valueStart) {
                    malformed = true; // §8.3.1: :path must not be empty
                }
            }
        } else {
            regularSeen = true;
            kind = regular(b, nameStart, nameLen, valueStart, valueEnd);
        }
        if (!validValue(b, valueStart, valueEnd)) {
            malformed = true;
        }
        if (kind != SKIP && kind != SCHEME && ++count > maxFields) {
            tooMany = true;
        }
        int valueOffset = valueStart - nameStart;
        if (kind == AUTHORITY) {
            b.put(nameStart, HOST);
            nameLen = 4;
        }
        int p = nameStart - PREFIX;
        b.put(p, (byte) kind);
        putShort(b, p + 1, nameLen);
        putShort(b, p + 3, valueOffset);
        putShort(b, p + 5, valueEnd - valueStart);
    }

    private static int pseudo(ByteBuffer b, int at, int len) {
        if (len == 7 && equals(b, at, ":method")) {
            return METHOD;
        }
        if (len == 5 && equals(b, at, ":path")) {
            return PATH;
        }
        if (len == 7 && equals(b, at, ":scheme")) {
            return SCHEME;
        }
        if (len == 10 && equals(b, at, ":authority")) {
            return AUTHORITY;
        }
        return -1;
    }

    private int regular(ByteBuffer b, int at, int len, int valueStart, int valueEnd) {
        if (!lowercaseToken(b, at, at + len)) {
            malformed = true; // §8.2.1: uppercase or not a token
            return REGULAR;
        }
        switch (len) {
            case 2:
                if (equals(b, at, "te") && !(valueEnd - valueStart == 8 && equals(b, valueStart, "trailers"))) {
                    malformed = true; // §8.2.2
                }
                break;
            case 4:
                if (equals(b, at, "host") && (pseudoSeen & 1 << AUTHORITY) != 0) {
                    return SKIP; // §8.3.1: :authority wins
                }
                break;
            case 7:
                if (equals(b, at, "upgrade")) {
                    malformed = true;
                }
                break;
            case 10:
                if (equals(b, at, "connection") || equals(b, at, "keep-alive")) {
                    malformed = true;
                }
                break;
            case 14:
                if (equals(b, at, "content-length")) {
                    contentLength = digits(b, valueStart, valueEnd);
                    if (contentLength < 0) {
                        malformed = true;
                    }
                }
                break;
            case 16:
                if (equals(b, at, "proxy-connection")) {
                    malformed = true;
                }
                break;
            case 17:
                if (equals(b, at, "transfer-encoding")) {
                    malformed = true;
                }
                break;
            default:
                break;
        }
        return REGULAR;
    }

    private static long digits(ByteBuffer b, int from, int to) {
        if (from == to || to - from > 18) {
            return -1;
        }
        long v = 0;
        for (int i = from; i < to; i++) {
            int c = b.get(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    private static final long LOW7 = 0x7F7F_7F7F_7F7F_7F7FL;
    private static final long ONES = 0x0101_0101_0101_0101L;
    private static final long CR = Swar.broadcast('\r');
    private static final long LF = Swar.broadcast('\n');

    /**
     * §8.2.1: a field name is a token without uppercase. Eight bytes at a time while they are lowercase
     * letters, digits or '-' (nearly every name); a word with anything else is looked at byte by byte.
     */
    static boolean lowercaseToken(ByteBuffer b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long w = b.getLong(i);
            long w7 = w & LOW7;
            long upper = (w7 + ONES * (0x80 - 'A')) & ~(w7 + ONES * (0x7F - 'Z')); // exact per lane (7-bit lanes)
            if (((Swar.notAlnumDashMask(w) | upper) & 0x8080_8080_8080_8080L) != 0 && !lowercaseTokenBytes(b, i, i + 8)) {
                return false;
            }
        }
        return lowercaseTokenBytes(b, i, to);
    }

    private static boolean lowercaseTokenBytes(ByteBuffer b, int from, int to) {
        for (int i = from; i < to; i++) {
            int c = b.get(i) & 0xff;
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '!' || c == '#'
                    || c == '$' || c == '%' || c == '&' || c == '\'' || c == '*' || c == '+' || c == '^' || c == '`'
                    || c == '|' || c == '~')) {
                return false;
            }
        }
        return true;
    }

    /**
     * §8.2.1: no NUL, CR or LF; no leading or trailing SP or HTAB. Eight bytes at a time: a mask is
     * non-zero only when some byte matches (a false mark only ever follows a true one, see {@link Swar}).
     */
    static boolean validValue(ByteBuffer b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long w = b.getLong(i);
            if ((Swar.zeroMask(w) | Swar.equalMask(w, CR) | Swar.equalMask(w, LF)) != 0) {
                return false;
            }
        }
        for (; i < to; i++) {
            int c = b.get(i);
            if (c == 0 || c == '\r' || c == '\n') {
                return false;
            }
        }
        if (to > from) {
            int first = b.get(from);
            int last = b.get(to - 1);
            return first != ' ' && first != '\t' && last != ' ' && last != '\t';
        }
        return true;
    }

    private static boolean equals(ByteBuffer b, int at, String s) {
        for (int i = 0; i < s.length(); i++) {
            if (b.get(at + i) != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private static void putShort(ByteBuffer b, int at, int v) {
        b.put(at, (byte) (v >>> 8));
        b.put(at + 1, (byte) v);
    }

    private static int getShort(ByteBuffer b, int at) {
        return (b.get(at) & 0xff) << 8 | (b.get(at + 1) & 0xff);
    }

    /** Points {@code v} at the fields laid out in {@code [from, to)} of {@code b} (see the class javadoc). */
    /** The regular fields laid out in {@code [from, to)} of {@code b}, name and value alternating (ISO-8859-1); null when none. */
    static String[] strings(ByteBuffer b, int from, int to) {
        java.util.ArrayList<String> f = new java.util.ArrayList<>();
        for (int p = from; p < to; ) {
            int name = p + PREFIX;
            int value = name + getShort(b, p + 3);
            if (b.get(p) == REGULAR) {
                f.add(ascii(b, name, getShort(b, p + 1)));
                f.add(ascii(b, value, getShort(b, p + 5)));
            }
            p = value + getShort(b, p + 5);
        }
        return f.isEmpty() ? null : f.toArray(new String[0]);
    }

    private static String ascii(ByteBuffer b, int at, int length) {
        byte[] bytes = new byte[length];
        b.get(at, bytes);
        return new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    static void fill(RequestView v, ByteBuffer b, int from, int to) {
        RequestFields.begin(v, b);
        boolean bigEndian = b.order() == ByteOrder.BIG_ENDIAN;
        int p = from;
        while (p < to) {
            int kind;
            int nameLen;
            int valueOffset;
            int valueLen;
            if (p + 8 <= to) { // the record and the name's first byte as one read
                long w = b.getLong(p);
                w = bigEndian ? w : Long.reverseBytes(w);
                kind = (int) (w >>> 56);
                nameLen = (int) (w >>> 40) & 0xffff;
                valueOffset = (int) (w >>> 24) & 0xffff;
                valueLen = (int) (w >>> 8) & 0xffff;
            } else {
                kind = b.get(p);
                nameLen = getShort(b, p + 1);
                valueOffset = getShort(b, p + 3);
                valueLen = getShort(b, p + 5);
            }
            int name = p + PREFIX;
            int value = name + valueOffset;
            switch (kind) {
                case METHOD:
                    RequestFields.method(v, value, value + valueLen);
                    break;
                case PATH:
                    RequestFields.target(v, value, value + valueLen);
                    break;
                case AUTHORITY:
                    RequestFields.authority(v, value, value + valueLen);
                    RequestFields.header(v, name, name + nameLen, value, value + valueLen);
                    break;
                case REGULAR:
                    RequestFields.header(v, name, name + nameLen, value, value + valueLen);
                    break;
                default:
                    break;
            }
            p = value + valueLen;
        }
    }
}
