package dev.peregrine.http1;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@link HeadParser} (eight bytes a step, framing names by masked words) against {@link Reference},
 * the rules restated the plain way: one byte at a time, names compared as strings. Every byte value at
 * every position of a few heads, then random heads built from the bytes that matter (CR, LF, SP, HTAB,
 * colon, NUL, DEL, 0x80-0xFF, obs-fold, bare CR and LF), must get the same verdict (the head's end,
 * {@code NEED_MORE} or {@code -status}) and, when accepted, the same fields and framing. A sample of the
 * cases is also fed at every split point: every prefix must give {@code NEED_MORE} or the whole verdict.
 */
class HeadParserDifferentialTest {
    private static final int MAX_LINE = 8192;
    private static final int MAX_HEAD = 16384;
    private static final int MAX_FIELDS = 100;

    private static final String[] HEADS = {
        "GET /plaintext HTTP/1.1\r\nHost: tfb-server:8080\r\n"
            + "Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\n"
            + "Connection: keep-alive\r\n\r\n",
        "POST /a/b?x=1&y=%20 HTTP/1.1\r\nhost: example.com\r\nContent-Length: 5\r\nExpect: 100-continue\r\n"
            + "Connection: close\r\nX-Tab:\tv\t \r\nEmpty:\r\nObs: caf\u00e9\r\n\r\n",
        "PUT /upload HTTP/1.1\r\nHost: [::1]:80\r\nTransfer-Encoding: gzip, chunked\r\nUser-Agent: curl/8.5\r\n\r\n",
        "OPTIONS * HTTP/1.0\r\nContent-Length: 7, 7\r\nX:  padded  \r\n\r\n",
        "\r\nGET http://a.example:8080/p?q HTTP/1.1\r\nHost: ignored.example\r\nTRANSFER-ENCODING: chunked\r\n\r\n",
    };

    /** Bytes a mutation or a random head draws from: the ones the rules turn on, and some of every kind. */
    private static final int[] ALPHABET = {
        '\r', '\n', ' ', '\t', ':', 0x00, 0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xFF, ',', '"', '?', '#', '/', '*',
        'a', 'Z', '0', '9', '-', '_', '.', '!', '~', '(', '@', '[', ';', '=',
    };

    @Test
    void everyByteValueAtEveryPositionGetsTheReferenceVerdict() {
        for (String head : HEADS) {
            byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
            for (int i = 0; i < bytes.length; i++) {
                for (int v = 0; v < 256; v++) {
                    byte[] m = bytes.clone();
                    m[i] = (byte) v;
                    check(m, (i * 256 + v) % 97 == 0);
                }
            }
        }
    }

    @Test
    void randomEditsOfRealHeadsGetTheReferenceVerdict() {
        SplittableRandom rnd = new SplittableRandom(27);
        for (int n = 0; n < 40_000; n++) {
            byte[] bytes = HEADS[rnd.nextInt(HEADS.length)].getBytes(StandardCharsets.ISO_8859_1);
            List<Byte> m = new ArrayList<>();
            for (byte x : bytes) {
                m.add(x);
            }
            int edits = 1 + rnd.nextInt(4);
            for (int e = 0; e < edits && !m.isEmpty(); e++) {
                int at = rnd.nextInt(m.size());
                switch (rnd.nextInt(6)) {
                    case 0 -> m.set(at, (byte) ALPHABET[rnd.nextInt(ALPHABET.length)]);
                    case 1 -> m.add(at, (byte) ALPHABET[rnd.nextInt(ALPHABET.length)]);
                    case 2 -> m.remove(at);
                    case 3 -> { // obs-fold: a line break followed by whitespace
                        m.add(at, (byte) (rnd.nextBoolean() ? ' ' : '\t'));
                        m.add(at, (byte) '\n');
                        m.add(at, (byte) '\r');
                    }
                    case 4 -> m.add(at, (byte) (rnd.nextBoolean() ? '\r' : '\n')); // a bare CR or LF
                    default -> { // a run of value bytes, long enough to span words
                        int len = rnd.nextInt(20);
                        for (int k = 0; k < len; k++) {
                            m.add(at, (byte) (0x20 + rnd.nextInt(0xE0)));
                        }
                    }
                }
            }
            byte[] a = new byte[m.size()];
            for (int i = 0; i < a.length; i++) {
                a[i] = m.get(i);
            }
            check(a, n % 20 == 0);
        }
    }

    @Test
    void randomHeadsOfFieldLinesGetTheReferenceVerdict() {
        SplittableRandom rnd = new SplittableRandom(2026);
        String[] names = {"Host", "host", "Content-Length", "Transfer-Encoding", "Expect", "Connection", "X", "Accept",
            "User-Agent", "sec-ch-ua", "Content-Lengt", "Hos", "Connectio", "EXPECT", "Transfer-EncodinG"};
        String[] values = {"a", "example.com:80", "5", "5, 5", "5,6", "chunked", "gzip", "chunked, chunked", "close",
            "Keep-Alive", "100-continue", "100-Continue", "", " ", "x\ty", "caf\u00e9", "1" .repeat(19), "a".repeat(23)};
        for (int n = 0; n < 30_000; n++) {
            StringBuilder s = new StringBuilder(rnd.nextBoolean() ? "GET / HTTP/1.1\r\n" : "POST /p?q HTTP/1.0\r\n");
            int fields = rnd.nextInt(6);
            for (int f = 0; f < fields; f++) {
                s.append(names[rnd.nextInt(names.length)]).append(':');
                s.append(" ".repeat(rnd.nextInt(3))).append(values[rnd.nextInt(values.length)]);
                s.append("\t".repeat(rnd.nextInt(2))).append("\r\n");
            }
            s.append("\r\n");
            byte[] a = s.toString().getBytes(StandardCharsets.ISO_8859_1);
            if (rnd.nextInt(3) == 0) {
                a[rnd.nextInt(a.length)] = (byte) ALPHABET[rnd.nextInt(ALPHABET.length)];
            }
            check(a, n % 10 == 0);
        }
    }

    /** The parser's verdict on {@code a} whole equals the reference's; with {@code splits}, every prefix is NEED_MORE or that verdict. */
    private static void check(byte[] a, boolean splits) {
        Head expected = new Head();
        int want = new Reference(a, expected).verdict();
        HeadParser parser = new HeadParser(MAX_LINE, MAX_HEAD, MAX_FIELDS);
        Head got = new Head();
        // The buffer has room after the bytes, as the loop's read buffer has: the parser may read a word
        // past `end` inside the limit, never rely on it.
        ByteBuffer b = ByteBuffer.allocateDirect(a.length + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.put(0, a);
        for (int i = a.length; i < a.length + 16; i++) {
            b.put(i, (byte) '\n');
        }
        int verdict = parser.parse(b, 0, a.length, got);
        if (verdict != want) {
            fail("verdict " + verdict + ", reference " + want + " for " + show(a));
        }
        if (want >= 0) {
            assertEquals(expected.describe(), got.describe(), () -> show(a));
        }
        if (splits) {
            for (int k = 0; k < a.length; k++) {
                int r = parser.parse(b, 0, k, new Head());
                if (r != HeadParser.NEED_MORE && r != verdict) {
                    fail("prefix of " + k + " gave " + r + ", whole " + verdict + " for " + show(a));
                }
            }
        }
    }

    private static String show(byte[] a) {
        StringBuilder s = new StringBuilder("\"");
        for (byte x : a) {
            int c = x & 0xFF;
            s.append(c >= 0x20 && c < 0x7F && c != '\\' ? String.valueOf((char) c) : String.format("\\x%02x", c));
        }
        return s.append('"').toString();
    }

    /** A head the parser fills; what the test compares of it. */
    static final class Head extends RequestHead {
        Head() {
            super(MAX_FIELDS);
        }

        @Override
        public void setBody(ByteBuffer b, int start, int length) {
        }

        String describe() {
            StringBuilder s = new StringBuilder();
            s.append(method).append(' ').append(methodStart).append('-').append(methodEnd).append(" path ").append(pathStart)
                    .append('-').append(pathEnd).append(" q ").append(queryStart).append(" t ").append(targetEnd)
                    .append(" v ").append(version).append(" * ").append(asteriskForm).append(" auth ").append(authorityStart)
                    .append(" cl ").append(contentLength).append(" chunked ").append(chunked).append(" expect ")
                    .append(expectContinue).append(" close ").append(connectionClose).append(" keep ").append(connectionKeepAlive);
            for (int i = 0; i < headerCount; i++) {
                s.append(" [").append(nameStart(i)).append(',').append(nameEnd(i)).append(',').append(valueStart(i))
                        .append(',').append(valueEnd(i)).append(']');
            }
            return s.toString();
        }
    }

    /**
     * The head rules one byte at a time (RFC 9112 §2-§6, RFC 9110 §5), the way the parser applied them
     * before it read words: the first byte that breaks a rule, left to right, decides; the rules on the
     * whole head (Host, Transfer-Encoding) once the empty line is in. It reuses {@link Authority#valid}
     * and {@link Methods#id}, which the word scans do not touch.
     */
    static final class Reference {
        private final byte[] a;
        private final int n;
        private final Head h;
        private final ByteBuffer buf;
        private int hostCount;
        private int hostStart;
        private int hostEnd;
        private boolean teSeen;
        private boolean teUnknown;
        private boolean teChunkedSeen;
        private boolean teChunkedLast;
        private boolean teChunkedTwice;

        Reference(byte[] a, Head h) {
            this.a = a;
            this.n = a.length;
            this.h = h;
            this.buf = ByteBuffer.wrap(a).order(ByteOrder.LITTLE_ENDIAN);
            h.reset(buf);
        }

        private int at(int i) {
            return a[i] & 0xFF;
        }

        private static boolean tchar(int c) {
            return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
        }

        int verdict() {
            int p = 0;
            int empty = 0;
            while (p < n && at(p) == '\r') {
                if (p + 1 >= n) {
                    return HeadParser.NEED_MORE;
                }
                if (at(p + 1) != '\n' || ++empty > HeadParser.MAX_EMPTY_LINES) {
                    return -400;
                }
                p += 2;
            }
            int line = p;
            while (true) { // method
                if (p >= n) {
                    return HeadParser.NEED_MORE;
                }
                if (at(p) == ' ') {
                    break;
                }
                if (!tchar(at(p))) {
                    return -400;
                }
                p++;
            }
            if (p == line) {
                return -400;
            }
            h.methodStart = line;
            h.methodEnd = p;
            h.method = Methods.id(buf, line, p);
            int ts = ++p;
            while (true) { // target
                if (p >= n) {
                    return HeadParser.NEED_MORE;
                }
                int c = at(p);
                if (c == ' ') {
                    break;
                }
                if (c == '?') {
                    if (h.queryStart < 0) {
                        h.queryStart = p + 1;
                    }
                } else if (c < 0x21 || c > 0x7E || c == '#') {
                    return -400;
                }
                p++;
            }
            if (p == ts) {
                return -400;
            }
            if (h.method == Methods.CONNECT) {
                return -501;
            }
            int pathEnd = h.queryStart < 0 ? p : h.queryStart - 1;
            if (!targetForm(ts, pathEnd)) {
                return -400;
            }
            h.pathEnd = pathEnd;
            h.targetEnd = p;
            p++;
            String version = "HTTP/1.1";
            for (int i = 0; i < 8; i++) { // version, judged byte by byte
                if (p + i >= n) {
                    return HeadParser.NEED_MORE;
                }
                int c = at(p + i);
                boolean ok = i < 5 ? c == "HTTP/".charAt(i) : i == 6 ? c == '.' : c >= '0' && c <= '9';
                if (!ok) {
                    return -400;
                }
                if (i == 5 && c != '1') {
                    return -505;
                }
            }
            h.version = a[p + 7] == '0' && a[p + 5] == '1' && a[p + 6] == '.' ? 10 : 11;
            if (p + 9 >= n) {
                return HeadParser.NEED_MORE;
            }
            if (at(p + 8) != '\r' || at(p + 9) != '\n') {
                return -400;
            }
            if (h.asteriskForm && h.method != Methods.OPTIONS) {
                return -400;
            }
            p += 10;
            while (true) { // field lines
                if (p >= n) {
                    return HeadParser.NEED_MORE;
                }
                int c = at(p);
                if (c == '\r') {
                    if (p + 1 >= n) {
                        return HeadParser.NEED_MORE;
                    }
                    if (at(p + 1) != '\n') {
                        return -400;
                    }
                    return finish(p + 2);
                }
                if (c == ' ' || c == '\t') {
                    return -400;
                }
                int ns = p;
                while (true) {
                    if (p >= n) {
                        return HeadParser.NEED_MORE;
                    }
                    c = at(p);
                    if (c == ':') {
                        break;
                    }
                    if (!tchar(c)) {
                        return -400;
                    }
                    p++;
                }
                if (p == ns) {
                    return -400;
                }
                int ne = p++;
                while (p < n && (at(p) == ' ' || at(p) == '\t')) {
                    p++;
                }
                int vs = p;
                while (true) {
                    if (p >= n) {
                        return HeadParser.NEED_MORE;
                    }
                    c = at(p);
                    if (c == '\r') {
                        break;
                    }
                    if (c != '\t' && (c < 0x20 || c == 0x7F)) {
                        return -400;
                    }
                    p++;
                }
                if (p + 1 >= n) {
                    return HeadParser.NEED_MORE;
                }
                if (at(p + 1) != '\n') {
                    return -400;
                }
                int ve = p;
                while (ve > vs && (at(ve - 1) == ' ' || at(ve - 1) == '\t')) {
                    ve--;
                }
                if (h.headerCount == MAX_FIELDS) {
                    return -431;
                }
                h.addField(ns, ne, vs, ve);
                int status = field(text(ns, ne).toLowerCase(java.util.Locale.ROOT), vs, ve);
                if (status != 0) {
                    return -status;
                }
                p += 2;
            }
        }

        private String text(int s, int e) {
            return new String(a, s, e - s, StandardCharsets.ISO_8859_1);
        }

        private static boolean asciiEqualsIgnoreCase(String s, String lower) {
            if (s.length() != lower.length()) {
                return false;
            }
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if ((c >= 'A' && c <= 'Z' ? (char) (c + 32) : c) != lower.charAt(i)) {
                    return false;
                }
            }
            return true;
        }

        private boolean targetForm(int ts, int pathEnd) {
            if (at(ts) == '/') {
                h.pathStart = ts;
                return true;
            }
            if (at(ts) == '*' && pathEnd == ts + 1 && h.queryStart < 0) {
                h.asteriskForm = true;
                h.pathStart = ts;
                return true;
            }
            String t = text(ts, pathEnd);
            int colon = t.indexOf("://");
            if (colon <= 0) {
                return false;
            }
            for (int i = 0; i < colon; i++) {
                char c = t.charAt(i);
                if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
                    return false;
                }
            }
            int as = ts + colon + 3;
            int slash = t.indexOf('/', colon + 3);
            int ae = slash < 0 ? pathEnd : ts + slash;
            if (ae == as || !Authority.valid(buf, as, ae, false)) {
                return false;
            }
            h.authorityStart = as;
            h.authorityEnd = ae;
            h.absolutePathEmpty = ae == pathEnd;
            h.pathStart = ae;
            return true;
        }

        private int field(String name, int vs, int ve) {
            String value = text(vs, ve);
            switch (name) {
                case "host" -> {
                    hostCount++;
                    hostStart = vs;
                    hostEnd = ve;
                }
                case "expect" -> {
                    if (!asciiEqualsIgnoreCase(value, "100-continue")) {
                        return 417;
                    }
                    h.expectContinue = true;
                }
                case "connection" -> {
                    for (String token : value.split("[, \t]")) {
                        h.connectionClose |= asciiEqualsIgnoreCase(token, "close");
                        h.connectionKeepAlive |= asciiEqualsIgnoreCase(token, "keep-alive");
                    }
                }
                case "content-length" -> {
                    for (String part : value.split(",", -1)) {
                        String digits = part.strip();
                        if (digits.isEmpty() || digits.length() > 18 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')
                                || part.chars().anyMatch(c -> c != ' ' && c != '\t' && (c < '0' || c > '9'))) {
                            return 400;
                        }
                        long v = Long.parseLong(digits);
                        if (h.contentLength >= 0 && h.contentLength != v) {
                            return 400;
                        }
                        h.contentLength = v;
                    }
                }
                case "transfer-encoding" -> {
                    teSeen = true;
                    for (String part : value.split(",")) {
                        String coding = part.replaceAll("^[ \t]+|[ \t]+$", "");
                        if (coding.isEmpty()) {
                            continue;
                        }
                        if (asciiEqualsIgnoreCase(coding, "chunked")) {
                            teChunkedTwice |= teChunkedSeen;
                            teChunkedSeen = true;
                            teChunkedLast = true;
                        } else {
                            teUnknown = true;
                            teChunkedLast = false;
                        }
                    }
                }
                default -> {
                }
            }
            return 0;
        }

        private int finish(int headEnd) {
            if (headEnd > MAX_HEAD) {
                return -431;
            }
            if (h.version == 11 && hostCount != 1 || hostCount > 1) {
                return -400;
            }
            if (hostCount == 1 && !Authority.valid(buf, hostStart, hostEnd, true)) {
                return -400;
            }
            if (teSeen) {
                if (h.version == 10 || h.contentLength >= 0 || teChunkedSeen && !teChunkedLast || teChunkedTwice) {
                    return -400;
                }
                if (teUnknown) {
                    return -501;
                }
                if (!teChunkedLast) {
                    return -400; // no coding at all
                }
                h.chunked = true;
            }
            return headEnd;
        }
    }
}
