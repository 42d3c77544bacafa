package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link TestClient}: handlers of every kind answered by the real connection code, without sockets. */
class TestClientTest {
    private static Server.Builder app() {
        return Server.builder()
                .get("/hi", (req, res) -> res.text("hi " + req.query().get("name")))
                .post("/echo", (req, res) -> res.contentType("application/octet-stream").body(req.bodyBytes()))
                .get("/blocking", Execution.BLOCKING, (req, res) -> res.text("off the loop"))
                .get("/async", (req, res) -> {
                    Completion done = res.async();
                    new Thread(() -> {
                        done.response().text("later");
                        done.complete();
                    }).start();
                })
                .get("/close", (req, res) -> res.text("bye"));
    }

    @Test
    void answersLikeAServer() {
        try (TestClient client = TestClient.of(app())) {
            TestClient.Response r = client.get("/hi?name=ann");
            assertEquals(200, r.status());
            assertEquals("hi ann", r.text());
            assertTrue(r.header("content-type").startsWith("text/plain"), r.header("Content-Type"));
            assertEquals("Peregrine", r.header("Server"));
            assertEquals(404, client.get("/nowhere").status());
            TestClient.Response echo = client.request("POST", "/echo", "abc".getBytes(StandardCharsets.UTF_8), "X-Test", "1");
            assertEquals("abc", echo.text());
        }
    }

    @Test
    void blockingAndAsyncHandlersAreWaitedFor() {
        try (TestClient client = TestClient.of(app()).timeout(java.time.Duration.ofSeconds(3))) {
            assertEquals("off the loop", client.get("/blocking").text());
            assertEquals("later", client.get("/async").text());
            assertEquals("hi null", client.get("/hi").text());
        }
    }

    @Test
    void rawBytesGetTheServersAnswersAndAClosedConnectionIsReplaced() {
        try (TestClient client = TestClient.of(app())) {
            List<TestClient.Response> two = client.send("GET /hi HTTP/1.1\r\nHost: a\r\n\r\nGET /hi?name=b HTTP/1.1\r\nHost: a\r\n\r\n", 2);
            assertEquals("hi b", two.get(1).text());
            List<TestClient.Response> bad = client.send("GET /hi HTTP/1.1\r\nHost: a b\r\n\r\n", 1);
            assertEquals(400, bad.get(0).status());
            assertEquals("close", bad.get(0).header("Connection"));
            assertEquals("hi null", client.get("/hi").text(), "a new connection after the close");
            TestClient.Response bye = client.request("GET", "/close", null, "Connection", "close");
            assertEquals("close", bye.header("Connection"));
            assertEquals("bye", bye.text());
            assertEquals(200, client.get("/hi").status());
        }
    }
}
