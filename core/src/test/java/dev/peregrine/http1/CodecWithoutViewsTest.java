package dev.peregrine.http1;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The HTTP/1.1 codec on its own (issue 22): {@link HeadParser} and {@link RequestFramer} fill a bare
 * {@link RequestHead}, and {@link ResponseEncoder} writes a bare {@link ResponseSource}, with no
 * request or response view of the exchange anywhere. What the views add is theirs; the offsets and
 * the bytes are the codec's.
 */
class CodecWithoutViewsTest {
    /** A head and nothing else: records where the framer put the body. */
    static final class Head extends RequestHead {
        ByteBuffer body;
        int bodyStart = -1;
        int bodyLength = -1;
        int resets;

        Head(int maxHeaders) {
            super(maxHeaders);
        }

        @Override
        protected void reset(ByteBuffer buf) {
            super.reset(buf);
            resets++;
        }

        @Override
        public void setBody(ByteBuffer b, int start, int length) {
            body = b;
            bodyStart = start;
            bodyLength = length;
        }
    }

    /** A response as an encoder reads it, the fields set directly (this package may). */
    static final class Source extends ResponseSource {
    }

    private static ByteBuffer buffer(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = ByteBuffer.allocateDirect(bytes.length + 64).order(ByteOrder.LITTLE_ENDIAN);
        b.put(0, bytes);
        return b;
    }

    private static String text(ByteBuffer b, int from, int to) {
        byte[] out = new byte[to - from];
        b.get(from, out);
        return new String(out, StandardCharsets.ISO_8859_1);
    }

    @Test
    void theParserFillsABareHead() {
        String wire = "POST /items?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello";
        ByteBuffer b = buffer(wire);
        Head h = new Head(8);
        int headEnd = new HeadParser(8192, 16384, 8).parse(b, 0, wire.length(), h);
        assertEquals(wire.length() - 5, headEnd);
        assertEquals(1, h.resets, "the parser clears the head once, through the subclass");
        assertEquals(Methods.POST, h.method);
        assertEquals("/items", text(b, h.pathStart, h.pathEnd));
        assertEquals("x=1", text(b, h.queryStart, h.targetEnd));
        assertEquals(11, h.version);
        assertEquals(5, h.contentLength());
        assertFalse(h.isChunked());
        assertEquals(3, h.fieldCount());
        assertEquals("X-A", text(b, h.nameStart(2), h.nameEnd(2)));
        assertEquals("b", text(b, h.valueStart(2), h.valueEnd(2)));
        assertEquals(0, h.firstByte());
        assertTrue(b == h.headBuffer());
    }

    @Test
    void theFramerHandsTheBodyToTheHead() {
        String wire = "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        ByteBuffer b = buffer(wire);
        Head h = new Head(8);
        RequestFramer framer = new RequestFramer(new HeadParser(8192, 16384, 8), 1 << 20, 16384, Long.MAX_VALUE);
        assertEquals(wire.length(), framer.frame(b, 0, wire.length(), h));
        assertTrue(h.isChunked());
        assertEquals("abcde", text(h.body, h.bodyStart, h.bodyStart + h.bodyLength));
    }

    @Test
    void aHeadCopiedMovesEveryOffset() {
        String wire = "GET /a?q HTTP/1.1\r\nHost: h\r\n\r\n";
        ByteBuffer b = buffer(wire);
        Head h = new Head(4);
        new HeadParser(8192, 16384, 4).parse(b, 0, wire.length(), h);
        ByteBuffer dst = ByteBuffer.allocate(wire.length() + 10).order(ByteOrder.LITTLE_ENDIAN);
        dst.put(10, b, 0, wire.length());
        Head c = new Head(4);
        c.copyHead(h, dst, 10);
        assertTrue(dst == c.headBuffer());
        assertEquals("/a", text(dst, c.pathStart, c.pathEnd));
        assertEquals("q", text(dst, c.queryStart, c.targetEnd));
        assertEquals("Host", text(dst, c.nameStart(0), c.nameEnd(0)));
        assertEquals(10, c.firstByte());
    }

    @Test
    void http2FieldsFillABareHeadTooAndItsFirstByteIsTheEarliestField() {
        String fields = "hxGET/p";
        ByteBuffer b = buffer(fields);
        Head h = new Head(4);
        RequestFields.begin(h, b);
        RequestFields.header(h, 0, 1, 1, 2);
        RequestFields.method(h, 2, 5);
        RequestFields.target(h, 5, 7);
        assertEquals(Methods.GET, h.method);
        assertEquals(20, h.version);
        assertEquals(0, h.firstByte(), "a field before the method");
    }

    @Test
    void theEncoderWritesABareSource() {
        Source s = new Source();
        s.status = 201;
        s.contentType = "text/plain";
        s.headerNames[0] = "X-A";
        s.headerValues[0] = "b";
        s.headerCount = 1;
        s.bodyKind = ResponseSource.BODY_BYTES;
        s.bodyBytes = "hi".getBytes(StandardCharsets.US_ASCII);
        ResponseEncoder e = new ResponseEncoder();
        e.tick(1_795_328_926_000L);
        ResponseEncoderTest.Sink sink = new ResponseEncoderTest.Sink(4096);
        e.encode(s, false, true, false, sink);
        assertEquals("HTTP/1.1 201 Created\r\nServer: Peregrine\r\nDate: Sun, 22 Nov 2026 06:28:46 GMT\r\n"
                + "Content-Type: text/plain\r\nX-A: b\r\nContent-Length: 2\r\n\r\nhi", sink.all());
        assertEquals(201, ResponseParts.status(s));
        assertEquals(2, ResponseParts.bodyLength(s));
    }
}
