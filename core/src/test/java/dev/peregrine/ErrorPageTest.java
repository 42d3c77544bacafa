package dev.peregrine;

import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One error-page API for every status the server answers itself, and exceptions thrown by filters
 * mapped like a handler's. Over a real socket for the parser's rejections.
 */
class ErrorPageTest {
    static final class Denied extends RuntimeException {
        Denied() {
            super("denied");
        }
    }

    private static final ErrorPage JSON = (status, reason, res) ->
            res.rawJson("{\"status\":" + status + ",\"reason\":\"" + reason + "\"}");

    private static Server start() {
        return Server.builder().port(0).threads(1).maxRequestLineLength(256).maxHeadSize(1024).maxBodySize(64)
                .headerTimeout(java.time.Duration.ofMillis(300))
                .errorPage(JSON)
                .get("/hi", (req, res) -> res.text("hi"))
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("a bug");
                })
                .get("/files/*", (req, res) -> res.text(req.pathParam("*")))
                .post("/hi", Execution.BLOCKING, (req, res) -> res.text("posted"))
                .start();
    }

    private static RawResponse send(int port, String raw) throws Exception {
        try (RawClient c = new RawClient(port)) {
            c.send(raw);
            return c.read();
        }
    }

    private static void assertPage(RawResponse r, int status) {
        assertEquals(status, r.status, r.wire());
        assertEquals("application/json", r.header("Content-Type"), r.wire());
        assertTrue(r.text().startsWith("{\"status\":" + status + ",\"reason\":\""), r.text());
    }

    @Test
    void everyAnswerOfTheServersOwnGetsThePage() throws Exception {
        try (Server s = start()) {
            int p = s.port();
            assertPage(send(p, "GET /nowhere HTTP/1.1\r\nHost: a\r\n\r\n"), 404);
            assertPage(send(p, "DELETE /hi HTTP/1.1\r\nHost: a\r\n\r\n"), 405);
            assertPage(send(p, "BREW /hi HTTP/1.1\r\nHost: a\r\n\r\n"), 501);
            assertPage(send(p, "GET /files/%2e%2e/x HTTP/1.1\r\nHost: a\r\n\r\n"), 400);
            assertPage(send(p, "GET /boom HTTP/1.1\r\nHost: a\r\n\r\n"), 500);
            assertPage(send(p, "GET /hi HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n"), 400);
            assertPage(send(p, "POST /hi HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n"), 413);
            assertPage(send(p, "GET /" + "a".repeat(300) + " HTTP/1.1\r\nHost: a\r\n\r\n"), 414);
            assertPage(send(p, "GET /hi HTTP/1.1\r\nHost: a\r\nX-Big: " + "b".repeat(1100) + "\r\n\r\n"), 431);
            assertPage(send(p, "GET /hi HTTP/1.1\r\nHost: a\r\n"), 408); // a request line, then the head stalls
            RawResponse closed = send(p, "GET /hi HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n");
            assertEquals("close", closed.header("Connection"), "a rejection still closes");
        }
    }

    @Test
    void aFailingPageFallsBackToTheDefault() {
        try (TestClient c = TestClient.of(Server.builder().errorPage((status, reason, res) -> {
            throw new IllegalStateException("page bug");
        }))) {
            TestClient.Response r = c.get("/nowhere");
            assertEquals(404, r.status());
            assertEquals("404 Not Found\n", r.text());
        }
    }

    @Test
    void filterExceptionsAreMappedLikeHandlerExceptions() {
        Server.Builder app = Server.builder()
                .filter((req, res, next) -> {
                    if (req.header("X-Deny") != null) {
                        throw new Denied();
                    }
                    next.handle(req, res);
                    res.header("X-Seen", String.valueOf(res.status()));
                })
                .exception(Denied.class, (e, req, res) -> res.status(403).text("mapped " + e.getMessage()))
                .get("/a", (req, res) -> res.text("a"))
                .get("/thrown", (req, res) -> {
                    throw new Denied();
                })
                .group("/g", g -> g
                        .filter((req, res, next) -> {
                            throw new Denied();
                        })
                        .get("/b", Execution.BLOCKING, (req, res) -> res.text("b")));
        try (TestClient c = TestClient.of(app)) {
            TestClient.Response denied = c.request("GET", "/a", null, "X-Deny", "1");
            assertEquals(403, denied.status());
            assertEquals("mapped denied", denied.text());
            TestClient.Response thrown = c.get("/thrown");
            assertEquals("mapped denied", thrown.text());
            assertEquals("403", thrown.header("X-Seen"), "the filter sees the handler's mapped answer");
            assertEquals(403, c.get("/g/b").status(), "a group filter's exception, off the loop");
            assertEquals(403, c.request("GET", "/nowhere", null, "X-Deny", "1").status(), "around the router's own answers too");
        }
    }
}
