package dev.peregrine.http1;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ResponseReader} on valid and invalid responses, whole and split at every byte (kept between
 * arrivals with the reader's own {@code keep}, as the client connection does).
 */
class ResponseReaderTest {
    static Stream<Arguments> valid() {
        return Stream.of(
                Arguments.of("length", false, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello", 200, "hello", 0),
                Arguments.of("chunked with extensions and trailers", false,
                        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n6\r\n world\r\n0\r\nT: v\r\n\r\n", 200, "hello world", 0),
                Arguments.of("interim responses first", false,
                        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok", 201, "ok", 2),
                Arguments.of("204 has no body", false, "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\n", 204, "", 0),
                Arguments.of("304 has no body", false, "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 304, "", 0),
                Arguments.of("HEAD has no body", true, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", 200, "", 0),
                Arguments.of("HTTP/1.0, empty reason", false, "HTTP/1.0 200 \r\nContent-Length: 1\r\n\r\nx", 200, "x", 0),
                Arguments.of("no reason, no SP", false, "HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", 404, "", 0),
                Arguments.of("same Content-Length twice", false, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab", 200, "ab", 0));
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", "malformed status line"),
                Arguments.of("bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", "malformed status code"),
                Arguments.of("space before colon", "HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\nx", "malformed header field name"),
                Arguments.of("obs-fold before any field", "HTTP/1.1 200 OK\r\n  b\r\nContent-Length: 0\r\n\r\n", "obsolete line folding"),
                Arguments.of("transfer coding not decodable", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxyz", "unsupported transfer coding: gzip"),
                Arguments.of("conflicting lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxy", "conflicting Content-Length"),
                Arguments.of("TE and CL", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", "both Transfer-Encoding and Content-Length"),
                Arguments.of("bad length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "malformed Content-Length"),
                Arguments.of("bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "malformed chunked body"),
                Arguments.of("NUL in a value", "HTTP/1.1 200 OK\r\nX: a\u0000b\r\nContent-Length: 0\r\n\r\n", "invalid byte 0x0"),
                Arguments.of("bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", "malformed status line"),
                Arguments.of("too large", "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n", "larger than"),
                Arguments.of("status below 100", "HTTP/1.1 099 Low\r\n\r\n", "status code below 100"),
                Arguments.of("four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", "malformed status line"),
                Arguments.of("control in the reason", "HTTP/1.1 200 A long reason\u0001phrase\r\n\r\n", "control character in the reason"),
                Arguments.of("CR without LF after the status line", "HTTP/1.1 200 OK\rX: y\r\n\r\n", "malformed status line"),
                Arguments.of("bare CR in a value", "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", "CR not followed by LF"),
                Arguments.of("bare LF after a value", "HTTP/1.1 200 OK\r\nX: a\n\r\n", "bare LF"),
                Arguments.of("no colon", "HTTP/1.1 200 OK\r\nJustAName\r\n\r\n", "malformed header field"),
                Arguments.of("empty name", "HTTP/1.1 200 OK\r\n: v\r\n\r\n", "malformed header field"),
                Arguments.of("bad byte in a long name", "HTTP/1.1 200 OK\r\nX-A-Rather-Long-Name\u0001: v\r\n\r\n", "malformed header field name"),
                Arguments.of("DEL deep in a long value", "HTTP/1.1 200 OK\r\nX: abcdefghijklmnopqrstuvwxyz\u007fz\r\n\r\n", "invalid byte 0x7f"),
                Arguments.of("CR without LF after the fields", "HTTP/1.1 200 OK\r\nX: y\r\n\rZ", "CR not followed by LF"));
    }

    /** Feeds {@code wire} split at {@code k} (0: whole), as the connection does; returns body text or "error: ...". */
    private static String read(byte[] wire, int k, boolean head) {
        ResponseReader r = new ResponseReader(16 * 1024, 1000);
        r.expect(head);
        ResponseFeeding.Outcome o = ResponseFeeding.feed(r, wire, k, false);
        return o.error() ? "error: " + r.error() : o.complete() ? r.status() + " " + o.body() : "incomplete";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valid")
    void validResponsesAtEverySplit(String name, boolean head, String wire, int status, String body, int interim) {
        byte[] bytes = wire.getBytes(StandardCharsets.ISO_8859_1);
        for (int k = 0; k < bytes.length; k++) {
            assertEquals(status + " " + body, read(bytes, k, head), "split at " + k);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidResponsesAtEverySplit(String name, String wire, String why) {
        byte[] bytes = wire.getBytes(StandardCharsets.ISO_8859_1);
        for (int k = 0; k < bytes.length; k++) {
            String got = read(bytes, k, false);
            assertTrue(got.startsWith("error: ") && got.contains(why), "split at " + k + ": " + got);
        }
    }

    @Test
    void aBodyUntilCloseEndsAtEndOfInputAndOtherwiseEndOfInputIsAnError() {
        byte[] wire = "HTTP/1.1 200 OK\r\n\r\nall of it".getBytes(StandardCharsets.ISO_8859_1);
        ResponseReader r = new ResponseReader(16 * 1024, 1000);
        r.expect(false);
        ByteBuffer b = ResponseFeeding.buffer(64);
        b.put(0, wire);
        assertEquals(ResponseReader.NEED_MORE, r.read(b, 0, wire.length));
        assertEquals(wire.length, r.atEndOfInput(b, 0, wire.length));
        byte[] body = new byte[r.bodyLength()];
        b.get(r.bodyStart(), body);
        assertEquals("all of it", new String(body, StandardCharsets.ISO_8859_1));

        byte[] cut = "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nall".getBytes(StandardCharsets.ISO_8859_1);
        r.expect(false);
        b.put(0, cut);
        assertEquals(ResponseReader.NEED_MORE, r.read(b, 0, cut.length));
        assertEquals(ResponseReader.ERROR, r.atEndOfInput(b, 0, cut.length));
        assertTrue(r.error().contains("middle of the body"), r.error());
    }

    @Test
    void aWholeStatusLineIsJudgedBeforeTheHeadEnds() {
        // a peer that is not an HTTP server says one line and waits: refused now, not at the read timeout
        for (String wire : new String[] {"SSH-2.0-OpenSSH_9.6\r\n", "HTTP/1.1 2x0 OK\r\nX: y\r\n", "HTTP/2 200\r\n"}) {
            byte[] bytes = wire.getBytes(StandardCharsets.ISO_8859_1);
            ResponseReader r = new ResponseReader(16 * 1024, 1000);
            r.expect(false);
            ByteBuffer b = ResponseFeeding.buffer(64);
            b.put(0, bytes);
            assertEquals(ResponseReader.ERROR, r.read(b, 0, bytes.length), wire);
            assertTrue(r.error().startsWith("malformed status"), r.error());
        }
        byte[] good = "HTTP/1.1 200 OK\r\nX: y\r\n".getBytes(StandardCharsets.ISO_8859_1);
        ResponseReader r = new ResponseReader(16 * 1024, 1000);
        r.expect(false);
        ByteBuffer b = ResponseFeeding.buffer(64);
        b.put(0, good);
        assertEquals(ResponseReader.NEED_MORE, r.read(b, 0, good.length), "a good status line waits for the rest of the head");
    }

    @Test
    void a101IsTheFinalHeadOnlyWhenAnUpgradeWasAsked() {
        byte[] wire = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n\u0081\u0000".getBytes(StandardCharsets.ISO_8859_1);
        int head = wire.length - 2; // the two bytes after it are the new protocol's
        for (int split = 0; split <= wire.length; split++) { // every split point of the input
            ResponseReader r = new ResponseReader(16 * 1024, 0);
            r.expectUpgrade();
            ByteBuffer b = ResponseFeeding.buffer(128);
            b.put(0, wire);
            int first = r.readHead(b, 0, split);
            if (split < head) {
                assertEquals(ResponseReader.NEED_MORE, first, "split " + split);
                assertEquals(head, r.readHead(b, r.responseStart(), wire.length), "split " + split);
            } else {
                assertEquals(head, first, "split " + split);
            }
            assertEquals(101, r.status());
            assertEquals(ResponseReader.BODY_NONE, r.bodyFraming());
        }
        ResponseReader plain = new ResponseReader(16 * 1024, 0);
        plain.expect(false); // expect() forgets the upgrade: a 101 unasked for is still an error
        ByteBuffer b = ResponseFeeding.buffer(128);
        b.put(0, wire);
        assertEquals(ResponseReader.ERROR, plain.readHead(b, 0, wire.length));
    }

    @Test
    void readHeadStopsAtTheHeadAndTellsTheFramingWithoutTheBodyLimit() {
        ResponseReader r = new ResponseReader(8192, 10);
        ByteBuffer b = ByteBuffer.wrap("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nabc"
                .getBytes(StandardCharsets.ISO_8859_1));
        r.expect(false);
        int headEnd = r.readHead(b, 0, b.limit());
        assertEquals("HTTP/1.1 100 Continue\r\n\r\n".length(), r.responseStart(), "the interim response is skipped");
        assertEquals(1, r.interimResponses());
        assertEquals(b.limit() - 3, headEnd, "the head ends before the body, which is not waited for");
        assertEquals(ResponseReader.BODY_LENGTH, r.bodyFraming());
        assertEquals(1000, r.contentLength(), "a streamed body is not held to maxBodySize (10)");
        r.expect(false);
        ByteBuffer c = ByteBuffer.wrap("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(c.limit(), r.readHead(c, 0, c.limit()));
        assertEquals(ResponseReader.BODY_CHUNKED, r.bodyFraming());
        r.expect(false);
        assertEquals(ResponseReader.NEED_MORE, r.readHead(c, 0, c.limit() - 1));
        r.expect(true);
        assertEquals(c.limit(), r.readHead(c, 0, c.limit()));
        assertEquals(ResponseReader.BODY_NONE, r.bodyFraming(), "no body after HEAD");
        r.expect(false);
        ByteBuffer big = ByteBuffer.wrap("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(ResponseReader.ERROR, r.read(big, 0, big.limit()), "read() still holds the limit");
    }

    @Test
    void fieldsAndReasonRepeatedByTheNextResponseAreTheSameStringsAndChangedOnesAreNew() {
        ResponseReader r = new ResponseReader(8192, 1 << 20);
        ByteBuffer a = ByteBuffer.wrap("HTTP/1.1 200 OK\r\nServer: P\r\nDate: one\r\nContent-Length: 2\r\n\r\nok"
                .getBytes(StandardCharsets.ISO_8859_1));
        r.expect(false);
        assertEquals(a.limit(), r.read(a, 0, a.limit()));
        String reason = r.reason();
        java.util.List<String> names = java.util.List.copyOf(r.names());
        java.util.List<String> values = java.util.List.copyOf(r.values());
        ByteBuffer b = ByteBuffer.wrap("HTTP/1.1 200 OK\r\nServer: P\r\nDate: two\r\nContent-Length: 2\r\n\r\nok"
                .getBytes(StandardCharsets.ISO_8859_1));
        r.expect(false);
        assertEquals(b.limit(), r.read(b, 0, b.limit()));
        org.junit.jupiter.api.Assertions.assertSame(reason, r.reason());
        for (int i = 0; i < 3; i++) {
            org.junit.jupiter.api.Assertions.assertSame(names.get(i), r.names().get(i));
        }
        org.junit.jupiter.api.Assertions.assertSame(values.get(0), r.values().get(0));
        assertEquals("two", r.values().get(1), "a changed value is read anew");
        org.junit.jupiter.api.Assertions.assertSame(values.get(2), r.values().get(2));
    }

    @Test
    void copiesOfRepeatedFieldsAreTheSameListAndChangedOnesAreNew() {
        ResponseReader r = new ResponseReader(8192, 1 << 20);
        byte[] one = "HTTP/1.1 200 OK\r\nServer: P\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        byte[] two = "HTTP/1.1 200 OK\r\nServer: Q\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
        r.expect(false);
        r.read(ByteBuffer.wrap(one), 0, one.length);
        java.util.List<String> names = r.namesCopy();
        java.util.List<String> values = r.valuesCopy();
        r.expect(false);
        r.read(ByteBuffer.wrap(one), 0, one.length);
        org.junit.jupiter.api.Assertions.assertSame(names, r.namesCopy());
        org.junit.jupiter.api.Assertions.assertSame(values, r.valuesCopy());
        r.expect(false);
        r.read(ByteBuffer.wrap(two), 0, two.length);
        org.junit.jupiter.api.Assertions.assertSame(names, r.namesCopy());
        assertEquals(java.util.List.of("Q", "0"), r.valuesCopy());
        assertEquals(java.util.List.of("P", "0"), values, "a copy handed out never changes");
    }

    @Test
    void emptyListElementsInFramingFieldsAreIgnoredOrRefusedNeverThrown() {
        ResponseReader r = new ResponseReader(8192, 1 << 20);
        String[][] cases = {
            {"Transfer-Encoding: chunked, \r\n", "chunked"},
            {"Transfer-Encoding: gzip , CHUNKED\r\n", "error"}, // a coding the client cannot decode
            {"Transfer-Encoding: , CHUNKED\r\n", "chunked"},
            {"Transfer-Encoding: ,\r\n", "until close"},
            {"Transfer-Encoding: chunked, gzip\r\n", "error"},
            {"Content-Length: ,\r\n", "error"},
            {"Content-Length: 3, 3\r\n", "3"},
            {"Content-Length: 3, 4\r\n", "error"},
            {"Content-Length: +3\r\n", "error"},
        };
        for (String[] c : cases) {
            ByteBuffer b = ByteBuffer.wrap(("HTTP/1.1 200 OK\r\n" + c[0] + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            r.expect(false);
            int end = r.readHead(b, 0, b.limit());
            String got = end == ResponseReader.ERROR ? "error"
                    : r.bodyFraming() == ResponseReader.BODY_CHUNKED ? "chunked"
                    : r.bodyFraming() == ResponseReader.BODY_UNTIL_CLOSE ? "until close" : String.valueOf(r.contentLength());
            assertEquals(c[1], got, c[0]);
        }
    }
    @Test
    void theHeadLimitHoldsAtEverySplitAndAHeadOfExactlyTheLimitReads() {
        String exact = "HTTP/1.1 200 OK\r\nX-Fill: " + "v".repeat(64 - 17 - 8 - 4) + "\r\n\r\n";
        assertEquals(64, exact.length());
        byte[] fits = exact.getBytes(StandardCharsets.ISO_8859_1);
        byte[] over = exact.replace("X-Fill: ", "X-Fill: w").getBytes(StandardCharsets.ISO_8859_1);
        for (int k = 0; k < over.length; k++) {
            ResponseReader r = new ResponseReader(64, 1000);
            r.expect(false);
            ResponseFeeding.Outcome o = ResponseFeeding.feed(r, fits, Math.min(k, fits.length - 1), true);
            assertEquals(fits.length, o.result(), "split at " + k + ": " + r.error());
            r.expect(false);
            o = ResponseFeeding.feed(r, over, k, false);
            assertTrue(o.error() && r.error().equals("response head larger than 64 bytes"), "split at " + k + ": " + r.error());
        }
        byte[] longLine = ("HTTP/1.1 200 " + "r".repeat(ResponseHead.MAX_STATUS_LINE) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
        for (int k : new int[] {0, 1, 13, ResponseHead.MAX_STATUS_LINE, longLine.length - 3}) {
            ResponseReader r = new ResponseReader(64 * 1024, 1000);
            r.expect(false);
            assertTrue(ResponseFeeding.feed(r, longLine, k, false).error(), "split at " + k);
            assertTrue(r.error().startsWith("status line longer than"), r.error());
        }
    }

    @Test
    void aBigEndianHeapBufferReadsLikeALittleEndianDirectOne() {
        // the word-at-a-time scans read a long in the buffer's order: both orders must see the same bytes
        String[] wires = {
            "HTTP/1.1 200 A reason phrase long enough\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\nhello",
            "HTTP/1.1 200 OK\r\nX-Long-Header-Name: a value of some length\u0000\r\n\r\n",
            "HTTP/1.1 200 OK\r\nX-Long-Header-Name\t: v\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        };
        for (String wire : wires) {
            byte[] bytes = wire.getBytes(StandardCharsets.ISO_8859_1);
            ResponseReader little = new ResponseReader(8192, 1000);
            little.expect(false);
            ByteBuffer direct = ResponseFeeding.buffer(bytes.length);
            direct.put(0, bytes);
            int l = little.read(direct, 0, bytes.length);
            ResponseReader big = new ResponseReader(8192, 1000);
            big.expect(false);
            int g = big.read(ByteBuffer.wrap(bytes.clone()), 0, bytes.length);
            assertEquals(l, g, wire);
            assertEquals(little.error(), big.error(), wire);
            assertEquals(little.names(), big.names(), wire);
            assertEquals(little.values(), big.values(), wire);
            assertEquals(little.reason(), big.reason(), wire);
        }
    }
}
