package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A filter that wraps {@link Response} (the usual status recorder) works with every answer: the
 * router's own (404, 405, 501, 400, OPTIONS), {@code before}/{@code after}, and what an after-hook
 * reads back ({@link Response#status()}, {@link Response#header(String)}, {@link Response#bodyLength()}).
 */
class ResponseWrapperTest {
    /** A status recorder as a user writes it: delegates everything. */
    static final class Recording implements Response {
        final Response d;
        int lastStatus = 200;

        Recording(Response d) {
            this.d = d;
        }

        @Override public Response status(int code) { lastStatus = code; d.status(code); return this; }
        @Override public Response header(String name, CharSequence value) { d.header(name, value); return this; }
        @Override public Response contentType(CharSequence type) { d.contentType(type); return this; }
        @Override public Response body(byte[] bytes) { d.body(bytes); return this; }
        @Override public Response body(ByteBuffer body) { d.body(body); return this; }
        @Override public Response body(CharSequence text) { d.body(text); return this; }
        @Override public Response text(CharSequence text) { d.text(text); return this; }
        @Override public Response rawJson(CharSequence json) { d.rawJson(json); return this; }
        @Override public Response interim(int status, String... headers) { d.interim(status, headers); return this; }
        @Override public Completion async() { return d.async(); }
        @Override public OutputStream outputStream() { return d.outputStream(); }
        @Override public Response stream(BodyProducer producer) { d.stream(producer); return this; }
        @Override public Response sendFile(Path file) throws IOException { d.sendFile(file); return this; }
        @Override public Response sendFile(Path root, String rel) throws IOException { d.sendFile(root, rel); return this; }
        @Override public Response sendFile(Path file, long offset, long length) throws IOException { d.sendFile(file, offset, length); return this; }
        @Override public Response sendFile(FileChannel ch, long offset, long length) throws IOException { d.sendFile(ch, offset, length); return this; }
        @Override public Response error(int status) { lastStatus = status; d.error(status); return this; }
        @Override public int status() { return d.status(); }
        @Override public String header(String name) { return d.header(name); }
        @Override public boolean committed() { return d.committed(); }
        @Override public long bodyLength() { return d.bodyLength(); }
    }

    @Test
    void theRoutersOwnAnswersAndHooksWorkThroughAWrapper() {
        List<String> seen = new ArrayList<>();
        Server.Builder app = Server.builder()
                .filter((req, res, next) -> {
                    Recording r = new Recording(res);
                    next.handle(req, r);
                    seen.add(req.method() + " " + req.path() + " " + r.lastStatus);
                })
                .before((req, res) -> {
                    if (req.header("X-Deny") != null) {
                        res.error(403);
                    }
                })
                .after((req, res) -> res.header("X-Seen", res.status() + " " + res.header("Content-Type") + " " + res.bodyLength()))
                .get("/hi", (req, res) -> res.text("hello"))
                .get("/files/*", (req, res) -> res.text(req.pathParam("*")));
        try (TestClient c = TestClient.of(app)) {
            TestClient.Response ok = c.get("/hi");
            assertEquals(200, ok.status());
            assertEquals("200 text/plain; charset=utf-8 5", ok.header("X-Seen"), "the after-hook reads the final answer");
            assertEquals(404, c.get("/nowhere").status());
            assertEquals("404 text/plain; charset=utf-8 14", c.get("/nowhere").header("X-Seen"));
            TestClient.Response post = c.request("POST", "/hi", new byte[0]);
            assertEquals(405, post.status());
            assertEquals("GET, HEAD, OPTIONS", post.header("Allow"));
            assertEquals(501, c.request("BREW", "/hi", null).status());
            assertEquals(400, c.get("/files/%2e%2e/x").status());
            assertEquals(204, c.request("OPTIONS", "/hi", null).status());
            assertEquals(403, c.request("GET", "/hi", null, "X-Deny", "1").status(), "before() reads the status through the wrapper");
        }
        assertFalse(seen.isEmpty());
        assertEquals("GET /nowhere 404", seen.get(1), "the recorder saw the router's own status");
    }

    @Test
    void readingBackWhatWasSet() {
        Server.Builder app = Server.builder().get("/r", (req, res) -> {
            assertEquals(200, res.status());
            res.status(201).header("X-A", "1").contentType("text/csv");
            res.body(new byte[7]);
            res.text("x"); // text() replaces the body and type
            assertFalse(res.committed());
            res.header("X-Read", res.status() + " " + res.header("x-a") + " " + res.header("Content-Type") + " "
                    + res.bodyLength() + " " + res.header("X-None"));
        });
        try (TestClient c = TestClient.of(app)) {
            assertEquals("201 1 text/plain; charset=utf-8 1 null", c.get("/r").header("X-Read"));
        }
    }
}
