package dev.peregrine;

import dev.peregrine.form.MultipartLimits;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Bodies by the route's limit, not their framing: {@code bodyString}, {@code bodyBytes}, {@code bodyAs}
 * and {@code form()} work on a blocking route for a Content-Length body above the stream threshold
 * (declared by marker or by {@link Execution}), as for the same body chunked or on an inline route;
 * a Content-Type they cannot read answers 415, never a 500. Over a real socket.
 */
class BodyByRouteLimitTest {
    static final class Item {
        public String name;
        public int count;
    }

    private static final int BIG = 2 * 1024 * 1024 + 17; // over the 1 MiB default threshold

    private static Server start() {
        Handler echo = (req, res) -> res.text(req.bodyString().length() + " " + req.bodyBytes().length + " " + req.bodyLength());
        Handler json = (req, res) -> {
            Item item = req.bodyAs(Item.class);
            res.text(item.name.length() + " " + item.count);
        };
        Handler form = (req, res) -> res.text(String.valueOf(req.form().get("a").length()));
        return Server.builder().port(0).threads(1).maxBodySize(4 * 1024 * 1024)
                .post("/marker", Handlers.blocking(echo))
                .post("/execution", Execution.BLOCKING, echo)
                .post("/inline", echo)
                .post("/json", Execution.BLOCKING, json)
                .post("/form", Execution.BLOCKING, form)
                .post("/multipart", Execution.BLOCKING, (req, res) -> {
                    try (var f = req.multipart(MultipartLimits.DEFAULTS)) {
                        res.text("parts");
                    }
                })
                .start();
    }

    private static RawResponse post(int port, String path, String type, byte[] body, boolean chunked) throws Exception {
        try (RawClient c = new RawClient(port)) {
            String head = "POST " + path + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n" + (type == null ? "" : "Content-Type: " + type + "\r\n");
            if (chunked) {
                c.send(head + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(body.length) + "\r\n");
                c.send(body);
                c.send("\r\n0\r\n\r\n");
            } else {
                c.send(head + "Content-Length: " + body.length + "\r\n\r\n");
                c.send(body);
            }
            return c.read();
        }
    }

    @Test
    void aLargeContentLengthBodyIsReadWholeOnABlockingRoute() throws Exception {
        byte[] body = "x".repeat(BIG).getBytes(StandardCharsets.US_ASCII);
        try (Server s = start()) {
            for (String path : new String[] {"/marker", "/execution", "/inline"}) {
                for (boolean chunked : new boolean[] {false, true}) {
                    RawResponse r = post(s.port(), path, "text/plain", body, chunked);
                    assertEquals(200, r.status, path + " chunked=" + chunked + ": " + r.text());
                    assertEquals(BIG + " " + BIG + " " + BIG, r.text(), path + " chunked=" + chunked);
                }
            }
            byte[] json = ("{\"name\":\"" + "n".repeat(BIG) + "\",\"count\":7}").getBytes(StandardCharsets.US_ASCII);
            RawResponse j = post(s.port(), "/json", "application/json; charset=utf-8", json, false);
            assertEquals(BIG + " 7", j.text());
            assertEquals(200, post(s.port(), "/json", "application/problem+json", "{\"name\":\"a\",\"count\":1}".getBytes(StandardCharsets.US_ASCII), false).status);
            byte[] form = ("a=" + "v".repeat(BIG)).getBytes(StandardCharsets.US_ASCII);
            assertEquals(String.valueOf(BIG), post(s.port(), "/form", "application/x-www-form-urlencoded", form, false).text());
        }
    }

    @Test
    void aContentTypeTheReaderCannotReadIs415() throws Exception {
        byte[] small = "{\"name\":\"a\",\"count\":1}".getBytes(StandardCharsets.US_ASCII);
        try (Server s = start()) {
            assertEquals(415, post(s.port(), "/json", "text/plain", small, false).status);
            assertEquals(415, post(s.port(), "/json", "application/x-www-form-urlencoded", "a=1".getBytes(StandardCharsets.US_ASCII), false).status);
            assertEquals(415, post(s.port(), "/form", "application/json", small, false).status);
            assertEquals(415, post(s.port(), "/form", "multipart/form-data; boundary=x", small, false).status);
            assertEquals(415, post(s.port(), "/multipart", "text/plain", small, false).status);
            assertEquals(415, post(s.port(), "/multipart", null, small, false).status);
            assertEquals(400, post(s.port(), "/multipart", "multipart/form-data", small, false).status, "no boundary: malformed, not unsupported");
        }
        try (TestClient c = TestClient.of(Server.builder().get("/q", (req, res) -> res.text(String.valueOf(req.form().map()))))) {
            assertEquals(Map.of().toString(), c.get("/q").text(), "no type, no body: no fields");
        }
    }
}
