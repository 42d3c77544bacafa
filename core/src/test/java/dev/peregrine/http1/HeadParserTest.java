package dev.peregrine.http1;

import dev.peregrine.buffer.HttpTokens;
import dev.peregrine.exchange.RequestView;

import dev.peregrine.testing.Corpus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HeadParser} over the shared corpus at every split point, then rule by rule (the javadoc's
 * table of rejections), then the limits at and just past their boundaries.
 */
class HeadParserTest {
    private static final long MAX_BODY = 1L << 30;

    static List<Corpus.Entry> valid() {
        return Corpus.valid();
    }

    static List<Corpus.Entry> invalid() {
        return Corpus.invalid();
    }

    // ---- corpus ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void validRequestIsAcceptedWhole(Corpus.Entry e) {
        FramingHarness f = new FramingHarness(MAX_BODY);
        int n = e.bytes.length;
        assertEquals(n, f.frame(FramingHarness.bufferOf(e.bytes, n), n), "message end");
        assertEquals(e.method(), f.request.method());
        assertEquals(e.path(), f.request.path());
        assertEquals(e.bodyLength(), f.request.bodyLength());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void validRequestGivesTheSameResultAtEverySplitPoint(Corpus.Entry e) {
        int n = e.bytes.length;
        FramingHarness whole = new FramingHarness(MAX_BODY);
        whole.frame(FramingHarness.bufferOf(e.bytes, n), n);
        String expected = whole.snapshot();
        for (int k = 0; k < n; k++) {
            FramingHarness f = new FramingHarness(MAX_BODY);
            ByteBuffer b = FramingHarness.buffer(n);
            b.put(0, e.bytes, 0, k);
            assertEquals(HeadParser.NEED_MORE, f.frame(b, k), "first " + k + " bytes");
            // As the connection does: move the unfinished request to a lent buffer through the
            // framer's keep (which drops chunk framing already decoded), then append the rest.
            ByteBuffer moved = FramingHarness.buffer(n);
            int kept = f.keep(b, k, moved);
            moved.put(kept, e.bytes, k, n - k);
            assertEquals(kept + n - k, f.frame(moved, kept + n - k), "split at " + k);
            assertEquals(expected, f.snapshot(), "split at " + k);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void validRequestArrivingOneByteAtATimeIsTheSame(Corpus.Entry e) {
        int n = e.bytes.length;
        FramingHarness whole = new FramingHarness(MAX_BODY);
        whole.frame(FramingHarness.bufferOf(e.bytes, n), n);
        FramingHarness f = new FramingHarness(MAX_BODY);
        ByteBuffer b = FramingHarness.buffer(n);
        for (int k = 1; k < n; k++) {
            b.put(k - 1, e.bytes[k - 1]);
            assertEquals(HeadParser.NEED_MORE, f.frame(b, k), "after " + k + " bytes");
        }
        b.put(n - 1, e.bytes[n - 1]);
        assertEquals(n, f.frame(b, n));
        assertEquals(whole.snapshot(), f.snapshot());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidRequestGivesItsStatusAtEverySplitPoint(Corpus.Entry e) {
        int n = e.bytes.length;
        assertEquals(-e.status(), new FramingHarness(MAX_BODY).frame(FramingHarness.bufferOf(e.bytes, n), n), "whole");
        for (int k = 0; k < n; k++) {
            FramingHarness f = new FramingHarness(MAX_BODY);
            ByteBuffer b = FramingHarness.buffer(n);
            b.put(0, e.bytes, 0, k);
            int first = f.frame(b, k);
            if (first != HeadParser.NEED_MORE) {
                assertEquals(-e.status(), first, "rejected early with another status, first " + k + " bytes");
                continue;
            }
            b.put(k, e.bytes, k, n - k);
            assertEquals(-e.status(), f.frame(b, n), "split at " + k);
        }
    }

    /**
     * Property over mutated corpus requests (fixed seed): whatever the bytes, a prefix gives either
     * NEED_MORE or the very result of the whole input, and continuing after NEED_MORE (to the end of
     * input, where a head held in pieces is judged at last) gives that result.
     */
    @Test
    void anySplitOfAnyInputGivesTheUnsplitResult() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(2026);
        List<Corpus.Entry> seeds = new java.util.ArrayList<>(Corpus.valid());
        seeds.addAll(Corpus.invalid());
        byte[] specials = {'\r', '\n', ' ', '\t', ':', ';', '0', 'a', 'F', 0, 0x7F, (byte) 0x80, '/', '?', '#', ',', '-'};
        for (int n = 0; n < 3000; n++) {
            byte[] in = seeds.get(rnd.nextInt(seeds.size())).bytes.clone();
            int edits = 1 + rnd.nextInt(3);
            for (int e = 0; e < edits; e++) {
                int at = rnd.nextInt(in.length);
                byte v = specials[rnd.nextInt(specials.length)];
                switch (rnd.nextInt(3)) {
                    case 0:
                        in[at] = v;
                        break;
                    case 1:
                        in = java.util.Arrays.copyOf(in, in.length + 1);
                        System.arraycopy(in, at, in, at + 1, in.length - at - 1);
                        in[at] = v;
                        break;
                    default:
                        if (in.length > 1) {
                            System.arraycopy(in, at + 1, in, at, in.length - at - 1);
                            in = java.util.Arrays.copyOf(in, in.length - 1);
                        }
                        break;
                }
            }
            int len = in.length;
            FramingHarness whole = new FramingHarness(MAX_BODY);
            int expected = whole.frame(FramingHarness.bufferOf(in, len), len);
            String snapshot = expected > 0 ? whole.snapshot() : null;
            String input = new String(in, java.nio.charset.StandardCharsets.ISO_8859_1);
            for (int k = 0; k < len; k++) {
                FramingHarness f = new FramingHarness(MAX_BODY);
                ByteBuffer b = FramingHarness.buffer(len);
                b.put(0, in, 0, k);
                int first = f.frame(b, k);
                if (first == HeadParser.NEED_MORE) {
                    b.put(k, in, k, len - k);
                    first = f.frame(b, len);
                    if (first == HeadParser.NEED_MORE) {
                        first = f.endOfInput(b, len); // no more will come: a head held whole is judged now
                    }
                }
                int at = k;
                assertEquals(expected, first, () -> "split at " + at + " of " + input);
                if (expected > 0) {
                    assertEquals(snapshot, f.snapshot(), () -> "split at " + at + " of " + input);
                }
            }
        }
    }

    // ---- what the view records ----

    @Test
    void recordsRequestLineAndFields() {
        FramingHarness f = parseOk("GET /users/42?x=1&y=%20 HTTP/1.1\r\nHost: example.com\r\nX-Padded: \t v a l \t\r\nEmpty:\r\n\r\n");
        RequestView r = f.request;
        assertEquals(Methods.GET, r.methodId());
        assertEquals("GET", r.method());
        assertEquals("/users/42", r.path());
        assertEquals("x=1&y=%20", r.rawQuery());
        assertEquals(11, r.versionNumber());
        assertEquals(3, r.headers().size());
        assertEquals("v a l", r.header("x-padded"));
        assertEquals("", r.header("Empty"));
        assertEquals(-1, r.contentLength());
        assertFalse(r.isChunked());
        assertTrue(r.keepAlive());
    }

    @Test
    void methodNotInTheListIsKeptAsAToken() {
        FramingHarness f = parseOk("M-SEARCH * HTTP/1.1\r\nHost: x\r\n\r\n".replace("*", "/x"));
        assertEquals(Methods.OTHER, f.request.methodId());
        assertEquals("M-SEARCH", f.request.method());
    }

    @Test
    void absoluteFormGivesThePathAndIgnoresTheAuthority() {
        assertEquals("/a/b", parseOk("GET https://example.com:8443/a/b?c HTTP/1.1\r\nHost: x\r\n\r\n").request.path());
        FramingHarness empty = parseOk("GET http://example.com?c=d HTTP/1.1\r\nHost: x\r\n\r\n");
        assertEquals("/", empty.request.path());
        assertEquals("c=d", empty.request.rawQuery());
    }

    @Test
    void aVersionThatCannotBecomeHttp1IsAnsweredBeforeTheLineEnds() {
        assertEquals(-505, parse("GET / HTTP/5"));
        assertEquals(-505, parse("GET / HTTP/5.6"));
        assertEquals(-400, parse("GET / HTTX"));
        assertEquals(-400, parse("GET / HTTP/1,"));
        assertEquals(HeadParser.NEED_MORE, parse("GET / HTTP/1."));
        assertEquals(HeadParser.NEED_MORE, parse("GET / HTTP/1.1\r"));
    }

    @Test
    void emptyLinesBeforeTheRequestLineAreIgnoredUpToABound() {
        assertEquals("/a", parseOk("\r\n\r\nGET /a HTTP/1.1\r\nHost: x\r\n\r\n").request.path());
        assertEquals(HeadParser.NEED_MORE, parse("\r\n"));
        assertEquals(-400, parse("\r\n".repeat(HeadParser.MAX_EMPTY_LINES + 1) + "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertEquals(-400, parse("\rGET /a HTTP/1.1\r\nHost: x\r\n\r\n"));
    }

    @Test
    void hostValuesAreValidatedAndAnAbsoluteFormAuthorityWins() {
        for (String bad : new String[] {"a b c", "x/y?z", "\u00ff\u00fe", "a:99999999", "a:123456", "user@a", "[::1", "[]", "a%zz", "a:b"}) {
            assertEquals(-400, parse("GET / HTTP/1.1\r\nHost: " + bad + "\r\n\r\n"), bad);
        }
        for (String good : new String[] {"", "a", "a.example", "a:", "a:65535", "127.0.0.1:80", "[::1]", "[::1]:8080", "a%41", "xn--bcher-kva.example"}) {
            assertEquals("/", parseOk("GET / HTTP/1.1\r\nHost: " + good + "\r\n\r\n").request.path(), good);
        }
        assertEquals("target.example:8080", parseOk("GET http://target.example:8080/x HTTP/1.1\r\nHost: other\r\n\r\n").request.host());
        assertEquals("other", parseOk("GET /x HTTP/1.1\r\nHost: other\r\n\r\n").request.host());
        assertEquals("h", parseOk("GET http://h?x=1 HTTP/1.1\r\nHost: h\r\n\r\n").request.host());
        assertEquals("x=1", parseOk("GET http://h?x=1 HTTP/1.1\r\nHost: h\r\n\r\n").request.rawQuery());
        assertEquals(-400, parse("GET http://u@h/ HTTP/1.1\r\nHost: h\r\n\r\n"));
    }

    @Test
    void asteriskFormOnlyForOptions() {
        FramingHarness f = parseOk("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(f.request.isAsteriskForm());
        assertEquals(-400, parse("GET * HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertEquals(-400, parse("OPTIONS *x HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertEquals(-400, parse("OPTIONS *?a HTTP/1.1\r\nHost: x\r\n\r\n"));
    }

    @Test
    void keepAliveRules() {
        assertTrue(parseOk("GET / HTTP/1.1\r\nHost: x\r\n\r\n").request.keepAlive());
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").request.keepAlive());
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: Keep-Alive, CLOSE\r\n\r\n").request.keepAlive());
        assertFalse(parseOk("GET / HTTP/1.0\r\n\r\n").request.keepAlive());
        assertTrue(parseOk("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").request.keepAlive());
        assertTrue(parseOk("GET / HTTP/1.0\r\nconnection: Upgrade,Keep-Alive\r\n\r\n").request.keepAlive());
        // The two common values are matched as words, in any case; near misses are other tokens.
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: CLOSE\r\n\r\n").request.keepAlive());
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: cLoSe \r\n\r\n").request.keepAlive());
        assertTrue(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: closf\r\n\r\n").request.keepAlive());
        assertTrue(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: closed\r\n\r\n").request.keepAlive());
        assertTrue(parseOk("GET / HTTP/1.0\r\nConnection: KEEP-ALIVE\r\n\r\n").request.keepAlive());
        assertFalse(parseOk("GET / HTTP/1.0\r\nConnection: keep-alivf\r\n\r\n").request.keepAlive());
        assertFalse(parseOk("GET / HTTP/1.0\r\nConnection: keep_alive\r\n\r\n").request.keepAlive());
        // "close" with its CRLF as the last bytes of the buffer (the head still incomplete): no read past it.
        assertEquals(HeadParser.NEED_MORE, parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"));
    }

    /**
     * The parser remembers the last valid Host (up to 16 bytes, short ones too): the same value is valid
     * again, and a different one of the same length, valid or not, is judged afresh.
     */
    @Test
    void theRememberedHostIsThatValueOnly() {
        String[][] hosts = {{"x", "200"}, {"x", "200"}, {"@", "400"}, {"y", "200"}, {"ab:1", "200"}, {"ab:1", "200"}, {"ab 1", "400"},
            {"ab:1", "200"}, {"a.example:80", "200"}, {"a.exampl%:80", "400"}, {"a.example:80", "200"}, {"", "200"}, {"", "200"}};
        for (int room : new int[] {0, 16}) { // the head at the buffer's end (a short value is checked each time), or bytes after it
            FramingHarness f = new FramingHarness(MAX_BODY);
            for (String[] h : hosts) {
                byte[] head = ("GET / HTTP/1.1\r\nHost: " + h[0] + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
                int r = f.parser.parse(FramingHarness.bufferOf(head, head.length + room), 0, head.length, f.request);
                assertEquals(h[1].equals("200") ? head.length : -400, r, "Host: " + h[0] + ", room " + room);
            }
        }
    }

    /** The {@code upgrade} option of {@code Connection} (RFC 9110 §7.8), which alone sends a request to the server's upgrades. */
    @Test
    void connectionUpgradeOption() {
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\n\r\n").request.connectionUpgrade());
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n").request.connectionUpgrade());
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n").request.connectionUpgrade());
        assertTrue(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\n\r\n").request.connectionUpgrade());
        assertTrue(parseOk("GET / HTTP/1.1\r\nHost: x\r\nconnection:UpGrAdE\r\n\r\n").request.connectionUpgrade());
        assertTrue(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive,\t UPGRADE , HTTP2-Settings\r\n\r\n").request.connectionUpgrade());
        // A second Connection line is part of the same list (RFC 9110 §5.3).
        assertTrue(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nConnection: Upgrade\r\n\r\n").request.connectionUpgrade());
        // Near misses are other options.
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrades, upgrad, x-upgrade\r\n\r\n").request.connectionUpgrade());
        assertFalse(parseOk("GET / HTTP/1.1\r\nHost: x\r\nX-Connection: upgrade\r\n\r\n").request.connectionUpgrade());
        // The flag is one request's: the same view parsing the next head starts without it.
        FramingHarness f = parseOk("GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\n\r\n");
        byte[] next = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        assertEquals(next.length, f.parser.parse(FramingHarness.bufferOf(next, next.length), 0, next.length, f.request));
        assertFalse(f.request.connectionUpgrade());
    }

    @Test
    void expectContinueIsRecordedAndAnythingElseIs417() {
        assertTrue(parseOk("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n").request.expectsContinue());
        assertEquals(-417, parse("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue, foo\r\n\r\n"));
        assertEquals(-417, parse("POST / HTTP/1.1\r\nHost: x\r\nExpect:\r\n\r\n"));
    }

    @Test
    void contentLengthAndTransferEncoding() {
        assertEquals(5, parseOk("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n").request.contentLength());
        assertEquals(5, parseOk("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 005\r\nContent-Length: 5\r\n\r\n").request.contentLength());
        assertEquals(0, parseOk("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n").request.contentLength());
        assertTrue(parseOk("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: CHUNKED \r\n\r\n").request.isChunked());
        assertEquals(-400, parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"));
        assertEquals(-400, parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1234567890123456789\r\n\r\n"));
        assertEquals(-501, parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"));
        assertEquals(-400, parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"));
        assertEquals(-400, parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"));
        assertEquals(-400, parse("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n"));
        assertEquals(-400, parse("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"));
    }

    @Test
    void versions() {
        assertEquals(10, parseOk("GET / HTTP/1.0\r\n\r\n").request.versionNumber());
        assertEquals(11, parseOk("GET / HTTP/1.9\r\nHost: x\r\n\r\n").request.versionNumber());
        assertEquals(-505, parse("GET / HTTP/2.0\r\nHost: x\r\n\r\n"));
        assertEquals(-505, parse("GET / HTTP/3.0\r\nHost: x\r\n\r\n"));
        assertEquals(-400, parse("GET / HTTP/1.1x\r\nHost: x\r\n\r\n"));
        assertEquals(-400, parse("GET / HTTP/1\r\nHost: x\r\n\r\n"));
    }

    @Test
    void connectIsNotImplementedWhateverItsTarget() {
        assertEquals(-501, parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"));
        assertEquals(-501, parse("CONNECT /x HTTP/1.1\r\nHost: x\r\n\r\n"));
    }

    @ParameterizedTest
    @ValueSource(ints = {0x00, 0x01, 0x08, 0x0A, 0x0B, 0x0C, 0x0D, 0x1F, 0x7F})
    void controlsInAFieldValueAre400(int control) {
        String head = "GET / HTTP/1.1\r\nHost: x\r\nX: ab" + (char) control + "cdefghijklmn\r\n\r\n";
        assertEquals(-400, parse(head));
    }

    @Test
    void tabsAndObsTextInAFieldValueAreAllowed() {
        assertEquals("a\tb\u00e9", parseOk("GET / HTTP/1.1\r\nHost: x\r\nX: a\tb\u00e9\r\n\r\n").request.header("X"));
    }

    @Test
    void everyNonTokenByteInAFieldNameIs400() {
        for (int c = 0; c < 256; c++) {
            if (HttpTokens.TCHAR[c] || c == ':') {
                continue;
            }
            String head = "GET / HTTP/1.1\r\nHost: x\r\nX" + (char) c + "Y: z\r\n\r\n";
            assertEquals(-400, parse(head), "byte " + c);
        }
    }

    @Test
    void everyNonTokenByteInTheMethodIs400() {
        for (int c = 0; c < 256; c++) {
            if (HttpTokens.TCHAR[c] || c == ' ') {
                continue;
            }
            assertEquals(-400, parse("P" + (char) c + "T / HTTP/1.1\r\nHost: x\r\n\r\n"), "byte " + c);
        }
    }

    /**
     * A field line is scanned for its CR before its name is scanned for the colon (HeadParser's class
     * doc): whatever is wrong with a line, and wherever the input ends in it, the answer is that of a
     * reading from left to right: 400 as soon as a bad name byte is in (though the line's end is not),
     * NEED_MORE before it.
     */
    @Test
    void aBadFieldNameIsAnsweredAtEveryPrefixThatHoldsItsBadByte() {
        String[] heads = {
            "GET / HTTP/1.1\r\nHost: x\r\nX(Y: a long value of several words, not ended yet",
            "GET / HTTP/1.1\r\nHost: x\r\nAccept-Language\u00e9: en\r\n\r\n", // a byte over 0x7F in a name
            "GET / HTTP/1.1\r\nHost: x\r\nX-Tab\t: v\r\n\r\n", // HTAB passes the line's scan, not the name's
            "GET / HTTP/1.1\r\nHost: x\r\nNo-Colon-At-All\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nHosts x: y\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nHo\rst: y\r\n\r\n", // a CR in the name: a bare CR
            "GET / HTTP/1.1\r\nHost: x\r\nX Y: a\u0001b\r\n\r\n", // bad name byte and a control in the value
            "GET / HTTP/1.1\r\nHost: x\r\n: empty name\r\n\r\n",
        };
        for (String head : heads) {
            byte[] in = ascii(head);
            int bad = badByteOfTheLastFieldName(head);
            for (int k = 0; k <= in.length; k++) {
                int expected = k <= bad ? HeadParser.NEED_MORE : -400;
                assertEquals(expected, parsePrefix(in, k), head + " first " + k + " bytes");
            }
        }
        // Past the head's bound: 400 for a bad name byte that is in, else 431.
        String start = "GET / HTTP/1.1\r\nHost: x\r\n";
        for (String line : new String[] {"X(: ", "X-: "}) {
            byte[] in = ascii(start + line + "v".repeat(300));
            assertEquals(line.equals("X(: ") ? -400 : -431, new FramingHarness(128, 256, 10, MAX_BODY).parser.parse(
                    FramingHarness.bufferOf(in, in.length), 0, in.length, new RequestView(10)), line);
        }
    }

    /** The index of the first byte of the last field line's name that is not a tchar (the colon of an empty name). */
    private static int badByteOfTheLastFieldName(String head) {
        int ns = head.lastIndexOf("Host: x\r\n") + 9;
        int i = ns;
        while (i < head.length() && head.charAt(i) < 256 && HttpTokens.TCHAR[head.charAt(i)]) {
            i++;
        }
        return i;
    }

    /** Names of every length from 1 to 20 with values of every length from 0 to 17: the colon and the CR at every place in a word. */
    @Test
    void namesAndValuesOfEveryLengthAreRecorded() {
        for (int n = 1; n <= 20; n++) {
            for (int v = 0; v <= 17; v++) {
                String name = "Abcdefghij-klmnopqrst".substring(0, n);
                String value = "0123456789abcdefgh".substring(0, v);
                for (String ows : new String[] {"", " ", "\t ", "  "}) {
                    String head = "GET / HTTP/1.1\r\nHost: x\r\n" + name + ":" + ows + value + ows + "\r\n\r\n";
                    FramingHarness f = parseOk(head);
                    assertEquals(value, f.request.header(name), head);
                    assertEquals(2, f.request.headers().size(), head);
                }
            }
        }
    }

    private static int parsePrefix(byte[] in, int k) {
        FramingHarness f = new FramingHarness(MAX_BODY);
        return f.parser.parse(FramingHarness.bufferOf(in, in.length), 0, k, f.request); // the rest is there, past end
    }

    // ---- limits ----

    @Test
    void requestLineAtTheLimitIsAcceptedAtEverySplitAndOneByteMoreIs414() {
        int limit = 64;
        String line = "GET /" + "a".repeat(limit - 14) + " HTTP/1.1";
        assertEquals(limit, line.length());
        byte[] ok = ascii(line + "\r\nHost: x\r\n\r\n");
        byte[] tooLong = ascii("GET /a" + line.substring(5) + "\r\nHost: x\r\n\r\n");
        for (int k = 0; k <= ok.length; k++) {
            FramingHarness f = new FramingHarness(limit, 1024, 10, MAX_BODY);
            ByteBuffer b = FramingHarness.bufferOf(ok, ok.length);
            int expected = k == ok.length ? ok.length : HeadParser.NEED_MORE;
            assertEquals(expected, f.frame(b, k), "first " + k + " bytes");
        }
        FramingHarness f = new FramingHarness(limit, 1024, 10, MAX_BODY);
        assertEquals(-414, f.frame(FramingHarness.bufferOf(tooLong, tooLong.length), tooLong.length));
        // An endless request line is refused once it passes the limit, without waiting for its end.
        byte[] endless = ascii("GET /" + "b".repeat(100));
        assertEquals(-414, f.frame(FramingHarness.bufferOf(endless, endless.length), endless.length));
        assertEquals(HeadParser.NEED_MORE, f.frame(FramingHarness.bufferOf(endless, endless.length), limit));
    }

    @Test
    void headAtTheLimitIsAcceptedAndOneByteMoreIs431() {
        int limit = 256;
        String start = "GET / HTTP/1.1\r\nHost: x\r\nX: ";
        String ok = start + "v".repeat(limit - start.length() - 4) + "\r\n\r\n";
        assertEquals(limit, ok.length());
        FramingHarness f = new FramingHarness(128, limit, 10, MAX_BODY);
        assertEquals(limit, f.frame(FramingHarness.bufferOf(ascii(ok), limit), limit));
        String tooBig = start + "v".repeat(limit - start.length() - 3) + "\r\n\r\n";
        assertEquals(-431, f.frame(FramingHarness.bufferOf(ascii(tooBig), tooBig.length()), tooBig.length()));
        String endless = start + "v".repeat(1000);
        assertEquals(-431, f.frame(FramingHarness.bufferOf(ascii(endless), endless.length()), endless.length()));
        assertEquals(HeadParser.NEED_MORE, f.frame(FramingHarness.bufferOf(ascii(endless), endless.length()), limit));
    }

    @Test
    void theDefaultLimitsAnswer414And431() {
        assertEquals(-414, parse("GET /" + "a".repeat(9000) + " HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertEquals(-431, parse("GET / HTTP/1.1\r\nHost: x\r\n" + "X-Big: 0123456789012345678901234567890123456789\r\n".repeat(400) + "\r\n"));
    }

    @Test
    void tooManyFieldsIs431() {
        String fields = "GET / HTTP/1.1\r\nHost: x\r\n" + "X: y\r\n".repeat(FramingHarness.MAX_HEADERS - 1);
        assertEquals(FramingHarness.MAX_HEADERS, parseOk(fields + "\r\n").request.headers().size());
        assertEquals(-431, parse(fields + "X: y\r\n\r\n"));
    }

    // ---- findHeadEnd ----

    @Test
    void findHeadEndFindsCrLfCrLfAcrossArrivals() {
        byte[] head = ascii("GET / HTTP/1.1\r\nHost: x\r\n\r\nBODY");
        ByteBuffer b = FramingHarness.bufferOf(head, head.length);
        int end = head.length - 4;
        assertEquals(end, HeadParser.findHeadEnd(b, 0, 0, head.length));
        for (int from = 0; from <= end; from++) {
            for (int stop = from; stop < end; stop++) {
                assertEquals(HeadParser.NEED_MORE, HeadParser.findHeadEnd(b, 0, from, stop));
            }
            assertEquals(end, HeadParser.findHeadEnd(b, 0, from, end), "from " + from);
        }
    }

    @Test
    void findHeadEndReportsABareLf() {
        ByteBuffer b = FramingHarness.bufferOf(ascii("GET / HTTP/1.1\nHost: x\r\n"), 64);
        assertEquals(0, HeadParser.findHeadEnd(b, 0, 0, 24));
    }

    // ---- helpers ----

    private static int parse(String head) {
        byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
        return new FramingHarness(MAX_BODY).parser.parse(FramingHarness.bufferOf(bytes, bytes.length), 0, bytes.length, new RequestView(FramingHarness.MAX_HEADERS));
    }

    private static FramingHarness parseOk(String head) {
        byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
        FramingHarness f = new FramingHarness(MAX_BODY);
        int r = f.parser.parse(FramingHarness.bufferOf(bytes, bytes.length), 0, bytes.length, f.request);
        assertEquals(bytes.length, r, head);
        return f;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void absentThingsAreNull() {
        FramingHarness f = parseOk("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assertNull(f.request.rawQuery());
        assertNull(f.request.header("Content-Type"));
    }
}
