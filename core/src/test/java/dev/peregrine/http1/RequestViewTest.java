package dev.peregrine.http1;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RequestView}: query and path parameters, header lookup, body views. */
class RequestViewTest {

    @Test
    void queryParametersAreDecodedAndTheFirstWins() {
        RequestView r = parse("GET /q?name=J%C3%BCrgen&x=a+b&empty&eq=&x=second&sp%20ace=1&bad=%zz%4 HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals("J\u00fcrgen", r.query().get("name"));
        assertEquals("a b", r.query().get("x"));
        assertEquals("", r.query().get("empty"));
        assertEquals("", r.query().get("eq"));
        assertEquals("1", r.query().get("sp ace"));
        assertEquals("%zz%4", r.query().get("bad"), "malformed escapes are kept as they are");
        assertNull(r.query().get("missing"));
        assertNull(r.query().get("nam"));
        assertEquals("name=J%C3%BCrgen&x=a+b&empty&eq=&x=second&sp%20ace=1&bad=%zz%4", r.rawQuery());
    }

    @Test
    void noQueryAndEmptyQuery() {
        assertNull(parse("GET /q HTTP/1.1\r\nHost: h\r\n\r\n").query().get("a"));
        RequestView empty = parse("GET /q? HTTP/1.1\r\nHost: h\r\n\r\n");
        assertEquals("", empty.rawQuery());
        assertNull(empty.query().get("a"));
        assertEquals("/q", empty.path());
    }

    @Test
    void pathParametersComeFromTheRouteAndAreDecoded() {
        Router router = Router.builder().add("GET", "/users/{id}/posts/{slug}", (q, s) -> { }).build();
        RequestView r = parse("GET /users/42/posts/hello%20world?x=1 HTTP/1.1\r\nHost: h\r\n\r\n");
        router.resolve(r, new int[16], new int[16]);
        assertEquals("42", r.pathParam("id"));
        assertEquals("hello world", r.pathParam("slug"));
        assertNull(r.pathParam("other"));
        assertEquals("/users/42/posts/hello%20world", r.path());
    }

    @Test
    void headerLookupIgnoresCaseAndReturnsTheFirst() {
        RequestView r = parse("GET / HTTP/1.1\r\nHost: h\r\nX-Multi: one\r\nx-multi: two\r\nContent-TYPE: text/plain\r\n\r\n");
        assertEquals("one", r.header("x-MULTI"));
        assertEquals("text/plain", r.header("content-type"));
        assertTrue(r.headers().has("HOST"));
        assertFalse(r.headers().has("Hos"));
        assertNull(r.header("Accept"));
        assertNull(r.headers().view("Accept"));
        CharSequence v = r.headers().view("CONTENT-type");
        assertEquals("text/plain", v.toString());
        assertEquals(4, r.headers().size());
        assertEquals("x-multi", r.headers().name(2).toString());
        assertEquals("two", r.headers().value(2).toString());
        assertThrows(IndexOutOfBoundsException.class, () -> r.headers().name(4));
        assertThrows(IndexOutOfBoundsException.class, () -> r.headers().value(-1));
    }

    @Test
    void headerLookupAllocatesNothing() {
        RequestView r = parse("GET / HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nContent-Type: text/plain\r\n\r\n");
        int[] found = {0};
        long allocated = dev.peregrine.testing.AllocationMeter.leastAllocated(3, () -> {
            for (int i = 0; i < 10_000; i++) {
                found[0] += r.headers().view("content-type").length() + (r.headers().has("accept") ? 1 : 0) + r.pathView().length();
            }
        });
        assertEquals(40_000 * 12, found[0]);
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes for 10,000 lookups");
    }

    @Test
    void bodyViewsCopiesAndEmptiness() {
        byte[] wire = "POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\ncaf\u00c3\u00a9!!".getBytes(StandardCharsets.ISO_8859_1);
        FramingHarness f = new FramingHarness(1 << 20);
        assertEquals(wire.length, f.frame(FramingHarness.bufferOf(wire, wire.length), wire.length));
        RequestView r = f.request;
        ByteBuffer body = r.body();
        assertTrue(body.isReadOnly());
        assertEquals(7, body.remaining());
        assertEquals((byte) 'c', body.get(body.position()));
        assertThrows(ReadOnlyBufferException.class, () -> body.put(body.position(), (byte) 0));
        assertSame(body, r.body(), "the view is reused");
        assertEquals(7, r.bodyLength());
        assertEquals("caf\u00e9!!", r.bodyString());
        byte[] copy = r.bodyBytes();
        assertEquals(7, copy.length);
        assertEquals('!', copy[6]);

        RequestView none = parse("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
        none.setBody(FramingHarness.buffer(1), 0, 0);
        assertEquals(0, none.body().remaining());
        assertEquals(0, none.bodyBytes().length);
        assertEquals("", none.bodyString());
    }

    @Test
    void versionMethodRemoteAndToString() {
        RequestView r = parse("DELETE /a?b=c HTTP/1.0\r\n\r\n");
        assertEquals("DELETE", r.method());
        assertEquals("HTTP/1.0", r.version());
        InetSocketAddress a = new InetSocketAddress("127.0.0.1", 1234);
        r.setRemoteAddress(a);
        assertSame(a, r.remoteAddress());
        assertEquals("DELETE /a?b=c HTTP/1.0", r.toString());
    }

    private static RequestView parse(String head) {
        byte[] bytes = head.getBytes(StandardCharsets.ISO_8859_1);
        RequestView r = new RequestView(16);
        int end = new HeadParser(8192, 16384, 16).parse(FramingHarness.bufferOf(bytes, bytes.length), 0, bytes.length, r);
        assertEquals(bytes.length, end, head);
        return r;
    }
}
