package dev.peregrine.http1;

import dev.peregrine.buffer.OutputSink;
import dev.peregrine.exchange.ResponseView;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ResponseEncoder} and {@link ResponseView}: the bytes written for each kind of response. */
class ResponseEncoderTest {
    private static final long NOW = 1_795_328_926_000L; // Sun, 22 Nov 2026 06:28:46 GMT
    private static final String DATE = "Date: Sun, 22 Nov 2026 06:28:46 GMT\r\n";

    /** A sink collecting everything drained, with a small buffer to force drains mid-response. */
    static final class Sink implements OutputSink {
        final ByteBuffer buf;
        final StringBuilder wire = new StringBuilder();
        int drains;

        Sink(int capacity) {
            buf = ByteBuffer.allocateDirect(capacity);
        }

        @Override
        public ByteBuffer out() {
            return buf;
        }

        @Override
        public void drain() {
            drains++;
            buf.flip();
            byte[] b = new byte[buf.remaining()];
            buf.get(b);
            wire.append(new String(b, StandardCharsets.ISO_8859_1));
            buf.clear();
        }

        String all() {
            drain();
            return wire.toString();
        }
    }

    private static String encode(ResponseView res, boolean head, boolean keepAlive, boolean http10) {
        ResponseEncoder e = new ResponseEncoder();
        e.tick(NOW);
        Sink sink = new Sink(4096);
        e.encode(res, head, keepAlive, http10, sink);
        return sink.all();
    }

    private static ResponseView res() {
        ResponseView r = new ResponseView();
        r.reset();
        return r;
    }

    @Test
    void plaintextResponse() {
        ResponseView r = res();
        r.contentType("text/plain").body("Hello, World!".getBytes(StandardCharsets.US_ASCII));
        assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!",
                encode(r, false, true, false));
    }

    @Test
    void headSendsTheLengthButNoBody() {
        ResponseView r = res();
        r.text("Hello");
        assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 5\r\n\r\n",
                encode(r, true, true, false));
    }

    @Test
    void noContentAndNotModifiedHaveNeitherLengthNorBody() {
        ResponseView r = res();
        r.status(204).header("Allow", "GET").body("ignored");
        assertEquals("HTTP/1.1 204 No Content\r\nServer: Peregrine\r\n" + DATE + "Allow: GET\r\n\r\n", encode(r, false, true, false));
        r.reset();
        r.status(304);
        assertEquals("HTTP/1.1 304 Not Modified\r\nServer: Peregrine\r\n" + DATE + "\r\n", encode(r, false, true, false));
    }

    @Test
    void connectionHeaderFollowsKeepAliveAndVersion() {
        ResponseView r = res();
        r.status(404);
        String close = encode(r, false, false, false);
        assertTrue(close.endsWith("Content-Length: 0\r\nConnection: close\r\n\r\n"), close);
        String http10 = encode(r, false, true, true);
        assertTrue(http10.endsWith("Content-Length: 0\r\nConnection: keep-alive\r\n\r\n"), http10);
        String http11 = encode(r, false, true, false);
        assertTrue(http11.endsWith("Content-Length: 0\r\n\r\n"), http11);
    }

    @Test
    void bodiesFromBytesBufferAndCharsAreTheSame() {
        String text = "caf\u00e9 \u20ac \ud83d\ude00 \ud800x";
        byte[] utf8 = "caf\u00e9 \u20ac \ud83d\ude00 \ufffdx".getBytes(StandardCharsets.UTF_8);
        ResponseView r = res();
        r.body(utf8);
        String fromBytes = encode(r, false, true, false);
        r.body(ByteBuffer.wrap(utf8));
        String fromBuffer = encode(r, false, true, false);
        r.body(new StringBuilder(text));
        String fromChars = encode(r, false, true, false);
        assertEquals(fromBytes, fromBuffer);
        assertEquals(fromBytes, fromChars);
        assertTrue(fromBytes.contains("Content-Length: " + utf8.length + "\r\n"));
    }

    @Test
    void aBodyLargerThanTheBufferIsWrittenThroughDrains() {
        byte[] big = new byte[100_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + i % 26);
        }
        ResponseView r = res();
        ByteBuffer body = ByteBuffer.allocateDirect(big.length).put(big).flip();
        for (Object b : new Object[] {big, body, new String(big, StandardCharsets.ISO_8859_1)}) {
            if (b instanceof byte[]) {
                r.body((byte[]) b);
            } else if (b instanceof ByteBuffer) {
                r.body((ByteBuffer) b);
            } else {
                r.body((String) b);
            }
            r.header("X-Long", "v".repeat(3000));
            ResponseEncoder e = new ResponseEncoder();
            e.tick(NOW);
            Sink sink = new Sink(1024);
            e.encode(r, false, true, false, sink);
            String wire = sink.all();
            assertTrue(sink.drains > 90);
            assertTrue(wire.endsWith(new String(big, StandardCharsets.ISO_8859_1)));
            assertTrue(wire.contains("Content-Length: 100000\r\n"));
            assertEquals(0, body.position(), "the handler's buffer is not consumed");
            r.reset();
        }
    }

    /**
     * A 200 with a content type and nothing else leaves in fewer copies (status, Server and Date as
     * one array): the same bytes as the general path, in every connection mode, and its Date follows
     * the clock.
     */
    @Test
    void theCommonAnswerIsTheSameBytesAsTheGeneralPath() {
        for (boolean keepAlive : new boolean[] {true, false}) {
            for (boolean http10 : new boolean[] {true, false}) {
                ResponseView r = res();
                r.contentType("text/plain").body("Hello".getBytes(StandardCharsets.US_ASCII));
                String close = keepAlive && !http10 ? "" : keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
                assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: text/plain\r\nContent-Length: 5\r\n"
                        + close + "\r\nHello", encode(r, false, keepAlive, http10), "keepAlive " + keepAlive + " http10 " + http10);
                r.header("X-A", "b"); // the general path
                assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: text/plain\r\nX-A: b\r\n"
                        + "Content-Length: 5\r\n" + close + "\r\nHello", encode(r, false, keepAlive, http10));
                ResponseView withFields = res();
                withFields.contentType("text/plain").body("Hello".getBytes(StandardCharsets.US_ASCII));
                withFields.fields("ETag: \"1\"\r\n".getBytes(StandardCharsets.US_ASCII)); // preformatted lines: the general path
                assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: text/plain\r\nETag: \"1\"\r\n"
                        + "Content-Length: 5\r\n" + close + "\r\nHello", encode(withFields, false, keepAlive, http10));
            }
        }
        ResponseEncoder e = new ResponseEncoder();
        ResponseView r = res();
        r.contentType("text/plain").body(new byte[0]);
        e.tick(NOW);
        e.tick(NOW + 1000);
        Sink later = new Sink(4096);
        e.encode(r, false, true, false, later);
        assertTrue(later.all().contains("Date: Sun, 22 Nov 2026 06:28:47 GMT\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n"));
    }

    /**
     * The common answer is put together on the heap and copied once: bodies on both sides of the
     * scratch's size, from bytes, a buffer and chars (multi-byte UTF-8), HEAD, with a sink that drains
     * mid-response, and a content type too long for the scratch (the general path), all give the
     * expected bytes.
     */
    @Test
    void theCommonAnswerIsTheSameAtEverySizeAndThroughDrains() {
        String longType = "text/plain; x=" + "y".repeat(2000);
        for (String type : new String[] {"text/plain", longType}) {
            for (int size : new int[] {0, 1, 13, 700, 850, 900, 1000, 1023, 1024, 5000}) {
                StringBuilder text = new StringBuilder();
                for (int i = 0; text.length() < size; i++) {
                    text.append(i % 7 == 0 ? '\u00e9' : (char) ('a' + i % 26)); // two bytes in UTF-8 each seventh
                }
                byte[] utf8 = text.toString().getBytes(StandardCharsets.UTF_8);
                String body = new String(utf8, StandardCharsets.ISO_8859_1);
                String head = "HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: " + type + "\r\nContent-Length: "
                        + utf8.length + "\r\n\r\n";
                for (int kind = 0; kind < 3; kind++) {
                    for (int sinkSize : new int[] {300, 4096}) {
                        ResponseView r = res();
                        r.contentType(type);
                        if (kind == 0) {
                            r.body(utf8);
                        } else if (kind == 1) {
                            r.body(ByteBuffer.wrap(utf8));
                        } else {
                            r.body(text);
                        }
                        for (boolean headRequest : new boolean[] {false, true}) {
                            ResponseEncoder e = new ResponseEncoder();
                            e.tick(NOW);
                            Sink sink = new Sink(sinkSize);
                            e.encode(r, headRequest, true, false, sink);
                            assertEquals(headRequest ? head : head + body, sink.all(),
                                    "type length " + type.length() + ", size " + size + ", kind " + kind + ", sink " + sinkSize);
                        }
                    }
                }
            }
        }
    }

    /**
     * Short pieces are copied eight bytes at a time with the last word overlapping: every body length
     * and every content-type line length from 0 to 80 bytes (across the 8- and 64-byte edges of that
     * copy), with distinct bytes so that a misplaced word shows.
     */
    @Test
    void shortBodiesAndTypesOfEveryLengthAreCopiedExactly() {
        for (int size = 0; size <= 80; size++) {
            byte[] body = new byte[size];
            for (int i = 0; i < size; i++) {
                body[i] = (byte) ('!' + i);
            }
            String type = "t/" + "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-+.abcdefghijklmno".substring(0, size);
            ResponseView r = res();
            r.contentType(type).body(body);
            assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: " + type + "\r\nContent-Length: " + size
                    + "\r\n\r\n" + new String(body, StandardCharsets.ISO_8859_1), encode(r, false, true, false), "length " + size);
        }
    }

    /**
     * A text body too large for the scratch is encoded through it a piece at a time: surrogate pairs
     * falling at every piece boundary stay whole, through a sink that drains mid-response.
     */
    @Test
    void aLargeTextBodyKeepsItsSurrogatePairsWholeAcrossPieces() {
        for (String lead : new String[] {"", "a", "\u00e9"}) {
            String text = lead + "\ud83d\ude00".repeat(3000) + "\u20ac";
            byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            ResponseView r = res();
            r.contentType("text/plain").body(text);
            ResponseEncoder e = new ResponseEncoder();
            e.tick(NOW);
            Sink sink = new Sink(1500);
            e.encode(r, false, true, false, sink);
            assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: text/plain\r\nContent-Length: "
                    + utf8.length + "\r\n\r\n" + new String(utf8, StandardCharsets.ISO_8859_1), sink.all(), "lead " + lead.length());
        }
    }

    /** A head larger than the scratch is ever kept at (64 KiB) is written whole, and the next response is unaffected. */
    @Test
    void aHugeHeadIsWrittenWholeAndTheNextResponseIsUnaffected() {
        ResponseEncoder e = new ResponseEncoder();
        e.tick(NOW);
        String huge = "h".repeat(100_000);
        ResponseView r = res();
        r.contentType("text/plain").header("X-Huge", huge).body("x".getBytes(StandardCharsets.US_ASCII));
        Sink sink = new Sink(4096);
        e.encode(r, false, true, false, sink);
        assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: text/plain\r\nX-Huge: " + huge
                + "\r\nContent-Length: 1\r\n\r\nx", sink.all());
        ResponseView small = res();
        small.contentType("text/plain").body("y".getBytes(StandardCharsets.US_ASCII));
        Sink next = new Sink(4096);
        e.encode(small, false, true, false, next);
        assertEquals("HTTP/1.1 200 OK\r\nServer: Peregrine\r\n" + DATE + "Content-Type: text/plain\r\nContent-Length: 1\r\n\r\ny",
                next.all());
    }

    @Test
    void errorsContinueAndTheDateTick() {
        ResponseEncoder e = new ResponseEncoder();
        e.tick(NOW);
        Sink sink = new Sink(4096);
        e.encodeError(431, sink);
        String body = "431 Request Header Fields Too Large\n";
        assertEquals("HTTP/1.1 431 Request Header Fields Too Large\r\nServer: Peregrine\r\n" + DATE
                + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body, sink.all());
        Sink c = new Sink(64);
        e.encodeContinue(c);
        assertEquals("HTTP/1.1 100 Continue\r\n\r\n", c.all());
        e.tick(NOW + 1000);
        Sink later = new Sink(4096);
        e.encodeError(400, later);
        assertTrue(later.all().contains("Date: Sun, 22 Nov 2026 06:28:47 GMT\r\n"));
        assertEquals("Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n", DateHeader.format(0));
    }

    /**
     * The view remembers the last Content-Type it found valid (a String): the same one again is not
     * re-checked, and a different value, or a mutable one whose chars changed since, still is.
     */
    @Test
    void aRememberedContentTypeDoesNotLetAnInvalidOneThrough() {
        ResponseView r = res();
        String type = "text/x-mine";
        r.contentType(type);
        r.reset();
        r.contentType(type);
        assertTrue(encode(r, false, true, false).contains("Content-Type: text/x-mine\r\n"));
        assertThrows(IllegalArgumentException.class, () -> r.contentType("text/x-mine\r\nInjected: 1"));
        StringBuilder b = new StringBuilder("text/a");
        r.contentType(b);
        b.append("\r\nInjected: 1");
        assertThrows(IllegalArgumentException.class, () -> r.contentType(b));
        r.reset();
        r.contentType(type);
        assertThrows(IllegalArgumentException.class, () -> r.contentType(new String("text/x-mine\n")));
    }

    @Test
    void responseViewRefusesHeadersThatCouldSplitOrReframeTheResponse() {
        ResponseView r = res();
        assertThrows(IllegalArgumentException.class, () -> r.header("X", "a\r\nInjected: 1"));
        assertThrows(IllegalArgumentException.class, () -> r.header("X", "a\nb"));
        assertThrows(IllegalArgumentException.class, () -> r.header("X", "a\u0000"));
        assertThrows(IllegalArgumentException.class, () -> r.header("Bad Name", "v"));
        assertThrows(IllegalArgumentException.class, () -> r.header("", "v"));
        assertThrows(IllegalArgumentException.class, () -> r.header("content-length", "5"));
        assertThrows(IllegalArgumentException.class, () -> r.header("Transfer-Encoding", "chunked"));
        assertThrows(IllegalArgumentException.class, () -> r.header("Connection", "close"));
        assertThrows(IllegalArgumentException.class, () -> r.header("DATE", "x"));
        assertThrows(IllegalArgumentException.class, () -> r.contentType("text/plain\r\n"));
        assertThrows(IllegalArgumentException.class, () -> r.status(99));
        assertThrows(IllegalArgumentException.class, () -> r.status(1000));
        for (int i = 0; i < 40; i++) {
            r.header("X-" + i, "v");
        }
        String wire = encode(r, false, true, false);
        assertTrue(wire.contains("X-0: v\r\n") && wire.contains("X-39: v\r\n"));
    }

    /**
     * One encoder, responses in a row that repeat a plain head and then change each part of what it
     * was made of, or write the scratch some other way in between: every response's bytes are those a
     * fresh encoder writes for it (the head {@code encode} keeps for a repeat is never stale).
     */
    @Test
    void aKeptHeadIsUsedOnlyForTheSameParts() {
        byte[] hello = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
        String big = "é".repeat(2000); // a char body past the scratch: written through it in pieces
        java.util.List<java.util.function.Consumer<ResponseView>> makers = java.util.List.of(
                r -> r.contentType("text/plain").body(hello),
                r -> r.contentType("text/plain").body(hello), // a repeat
                r -> r.contentType("text/plain").body("Hello, Earth!".getBytes(StandardCharsets.US_ASCII)), // same length
                r -> r.contentType("text/plain").body("Hi".getBytes(StandardCharsets.US_ASCII)),
                r -> r.status(201).contentType("text/plain").body(hello),
                r -> r.contentType("application/json").body(hello),
                r -> r.contentType(new StringBuilder("text/plain")).body(hello), // not a String: never kept
                r -> r.contentType("text/plain").header("X-A", "1").body(hello),
                r -> r.contentType("text/plain").body(hello),
                r -> {
                    r.contentType("text/plain").body(hello);
                    r.requestId = "r-1";
                },
                r -> r.contentType("text/plain").body(hello),
                r -> r.status(204),
                r -> r.status(204),
                r -> r.text(big),
                r -> r.text(big),
                r -> r.contentType("text/plain").body(hello));
        ResponseEncoder shared = new ResponseEncoder();
        shared.tick(NOW);
        int step = 0;
        for (boolean[] connection : new boolean[][] {{true, false}, {false, false}, {true, true}, {true, false}}) {
            for (java.util.function.Consumer<ResponseView> make : makers) {
                long now = NOW + 1000L * (step / 7); // a new second (a new Date line) every seventh response
                if (step % 7 == 0) {
                    shared.tick(now); // the loop's tick, once a millisecond at most: not before every response
                } else if (step % 3 == 0) {
                    shared.tick(now + step % 7); // a tick in the same second keeps the head
                }
                ResponseView r = res();
                make.accept(r);
                Sink got = new Sink(4096);
                shared.encode(r, false, connection[0], connection[1], got);
                ResponseEncoder fresh = new ResponseEncoder();
                fresh.tick(now);
                Sink want = new Sink(4096);
                fresh.encode(r, false, connection[0], connection[1], want);
                assertEquals(want.all(), got.all(), "response " + step);
                if (step % 5 == 4) {
                    Sink error = new Sink(4096);
                    shared.encodeError(400, error); // writes the scratch from its start
                }
                step++;
            }
        }
    }
    /**
     * A kept head outlives the clock's ticks: the same plain response, encoded twice between ticks
     * (a quarter second apart, so within a second and across seconds), carries each second's Date,
     * byte for byte what a fresh encoder writes; and a head first put together by a HEAD response or
     * after an error is no different.
     */
    @Test
    void aKeptHeadTakesEachTicksDate() {
        byte[] hello = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
        ResponseEncoder shared = new ResponseEncoder();
        int step = 0;
        for (long now = NOW - 900; now < NOW + 3100; now += 250) {
            shared.tick(now);
            if (step % 5 == 3) {
                shared.encodeError(400, new Sink(4096)); // the scratch written another way: nothing kept
            }
            for (int i = 0; i < 2; i++) {
                boolean head = step % 4 == 1 && i == 0;
                ResponseView r = res();
                r.contentType("text/plain").body(hello);
                Sink got = new Sink(4096);
                shared.encode(r, head, true, false, got);
                ResponseEncoder fresh = new ResponseEncoder();
                fresh.tick(now);
                Sink want = new Sink(4096);
                fresh.encode(r, head, true, false, want);
                String g = got.all();
                assertEquals(want.all(), g, "at " + now + ", response " + i);
                assertTrue(g.contains(DateHeader.format(Math.floorDiv(now, 1000))), g);
            }
            step++;
        }
    }
}
