package dev.peregrine.http1;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What RFC 9112 has a user agent do with a response, at every split of the bytes: obs-fold replaced
 * by SP before the value is read (§5.2); a transfer coding it cannot decode is an error (§6.1); an
 * HTTP/1.0 response ends the connection's reuse unless it says keep-alive (§9.3). And every error
 * comes with its kind, so no caller reads the message to classify it.
 */
class ResponseReaderRfcTest {
    private static ResponseFeeding.Outcome read(String wire, int k) {
        ResponseReader r = new ResponseReader(16 * 1024, 1 << 20);
        r.expect(false);
        return ResponseFeeding.feed(r, wire.getBytes(StandardCharsets.ISO_8859_1), k, false);
    }

    private static String value(ResponseReader r, String name) {
        for (int i = 0; i < r.names().size(); i++) {
            if (r.names().get(i).equalsIgnoreCase(name)) {
                return r.values().get(i);
            }
        }
        return null;
    }

    @Test
    void obsFoldIsReplacedBySpaceAtEverySplit() {
        String wire = "HTTP/1.1 200 OK\r\nX-Long: a\r\n\tb\r\n  c\r\nX-Empty:\r\n \t d\r\nContent-Length:\r\n 2\r\n\r\nok";
        for (int k = 0; k < wire.length(); k++) {
            ResponseFeeding.Outcome o = read(wire, k);
            assertTrue(o.complete(), "split at " + k + ": " + o.reader().error());
            assertEquals("a   b    c", value(o.reader(), "X-Long"), "split at " + k);
            assertEquals("d", value(o.reader(), "X-Empty"), "split at " + k);
            assertEquals("ok", o.body(), "a folded Content-Length frames by its whole value; split at " + k);
        }
    }

    @Test
    void foldingBeforeTheFirstFieldIsStillRefused() {
        ResponseFeeding.Outcome o = read("HTTP/1.1 200 OK\r\n X: a\r\nContent-Length: 0\r\n\r\n", 0);
        assertTrue(o.error());
        assertEquals(ResponseReader.Failure.MALFORMED, o.reader().failure());
    }

    @Test
    void aTransferCodingTheClientCannotDecodeIsAnError() {
        for (String te : new String[] {"gzip", "gzip, chunked", "deflate,chunked", "identity"}) {
            String wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: " + te + "\r\n\r\n5\r\nabcde\r\n0\r\n\r\n";
            for (int k = 0; k < wire.length(); k++) {
                ResponseFeeding.Outcome o = read(wire, k);
                assertTrue(o.error(), te + " split at " + k);
                assertEquals(ResponseReader.Failure.UNSUPPORTED_CODING, o.reader().failure(), te);
            }
        }
    }

    @Test
    void http10KeepsTheConnectionOnlyWithKeepAlive() {
        assertFalse(persistent("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"), "1.0 without keep-alive");
        assertTrue(persistent("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"));
        assertFalse(persistent("HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n"));
        assertTrue(persistent("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
        assertTrue(persistent("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n"));
        assertFalse(persistent("HTTP/1.1 200 OK\r\nConnection: upgrade ,CLOSE\r\nContent-Length: 0\r\n\r\n"));
        assertFalse(persistent("HTTP/1.0 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"));
        assertTrue(persistent("HTTP/1.0 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
                "the final response's version decides, not an interim one's");
    }

    private static boolean persistent(String wire) {
        ResponseFeeding.Outcome o = read(wire, 0);
        assertTrue(o.complete(), o.reader().error());
        return o.reader().persistent();
    }

    @Test
    void everyErrorHasItsKind() {
        ResponseReader small = new ResponseReader(64, 4);
        small.expect(false);
        ResponseFeeding.Outcome big = ResponseFeeding.feed(small,
                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".getBytes(StandardCharsets.ISO_8859_1), 0, false);
        assertEquals(ResponseReader.Failure.TOO_LARGE, big.reader().failure());
        small.expect(false);
        ResponseFeeding.Outcome head = ResponseFeeding.feed(small,
                ("HTTP/1.1 200 OK\r\nX: " + "v".repeat(80) + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), 0, false);
        assertEquals(ResponseReader.Failure.TOO_LARGE, head.reader().failure());
        assertEquals(ResponseReader.Failure.MALFORMED, read("HTTP/1.1 2x0 OK\r\n\r\n", 0).reader().failure());
        ResponseReader r = new ResponseReader(1024, 1024);
        r.expect(false);
        ResponseFeeding.Outcome cut = ResponseFeeding.feed(r,
                "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel".getBytes(StandardCharsets.ISO_8859_1), 0, true);
        assertTrue(cut.error());
        assertEquals(ResponseReader.Failure.TRUNCATED, r.failure());
    }
}
