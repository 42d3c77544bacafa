package dev.peregrine.testing;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The kit's response reader: each framing it claims, and what it refuses. */
class RawResponseTest {
    private static final String PIPELINE = """
            HTTP/1.1 100 Continue\r
            \r
            HTTP/1.1 200 OK\r
            Content-Length: 5\r
            Set-Cookie: a=1\r
            set-cookie: b=2\r
            \r
            helloHTTP/1.1 200 OK\r
            Transfer-Encoding: chunked\r
            \r
            3;ext=1\r
            abc\r
            a\r
            0123456789\r
            0\r
            Trailer: x\r
            \r
            HTTP/1.1 200 OK\r
            Content-Length: 13\r
            \r
            HTTP/1.1 204 No Content\r
            \r
            HTTP/1.1 304 Not Modified\r
            Content-Length: 99\r
            \r
            """;

    @Test
    void everyFramingInOnePipeline() throws IOException {
        List<RawResponse> all = RawResponse.readAll(RawClient.bytes(PIPELINE), false, false, false, true);
        assertEquals(List.of(100, 200, 200, 200, 204, 304), all.stream().map(r -> r.status).toList());
        assertEquals("hello", all.get(1).text());
        assertEquals(List.of("a=1", "b=2"), all.get(1).headers("Set-Cookie"));
        assertEquals("abc0123456789", all.get(2).text(), "de-chunked, extensions and trailers dropped");
        assertEquals(0, all.get(3).body.length, "the answer to HEAD has no body whatever its length says");
        assertEquals("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\n\r\nhello",
                all.get(1).wire());
        assertNull(all.get(4).header("Content-Length"));
    }

    @Test
    void headAndChunksReadOneByOne() throws IOException {
        ByteArrayInputStream in = new ByteArrayInputStream(RawClient.bytes(PIPELINE.substring(PIPELINE.indexOf("helloHTTP") + 5)));
        assertEquals("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", RawResponse.readHead(in));
        assertArrayEquals(RawClient.bytes("abc"), RawResponse.readChunk(in));
        assertArrayEquals(RawClient.bytes("0123456789"), RawResponse.readChunk(in));
        assertArrayEquals(new byte[0], RawResponse.readChunk(in), "the last chunk");
    }

    @Test
    void badOrShortResponsesAreRefused() {
        assertThrows(IOException.class, () -> RawResponse.read(in("HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n")), "bare LF");
        assertThrows(IOException.class, () -> RawResponse.read(in("SSH-2.0-OpenSSH\r\n\r\n")), "not HTTP");
        assertThrows(EOFException.class, () -> RawResponse.read(in("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort")));
        assertThrows(EOFException.class, () -> RawResponse.read(in("HTTP/1.1 200 OK\r\nContent-")));
        assertThrows(EOFException.class, () -> RawResponse.read(in("")));
    }

    private static ByteArrayInputStream in(String s) {
        return new ByteArrayInputStream(RawClient.bytes(s));
    }
}
