package dev.peregrine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Request attributes set by a filter reach the handler on the loop, off it (blocking, by marker and by
 * {@link Execution}), through {@code async()} completed on another thread, and a copy; and they never
 * leak into the next request on the same connection.
 */
class RequestAttributesTest {
    @Test
    void attributesHoldAcrossFiltersThreadsAndCompletion() {
        Thread caller = Thread.currentThread(); // TestClient's loop: off-loop handlers run elsewhere
        Server.Builder app = Server.builder()
                .filter((req, res, next) -> {
                    String user = req.header("X-User");
                    if (user != null) {
                        req.attribute("user", user);
                    }
                    next.handle(req, res);
                })
                .filter((req, res, next) -> {
                    req.attribute("seenBy", "inner:" + req.<String>attribute("user"));
                    next.handle(req, res);
                })
                .get("/inline", (req, res) -> res.text(req.<String>attribute("user") + " " + req.attribute("seenBy")))
                .get("/blocking", Handlers.blocking((req, res) -> res.text(req.<String>attribute("user") + " " + req.attribute("seenBy"))))
                .get("/execution", Execution.BLOCKING, (req, res) -> res.text(req.<String>attribute("user") + " " + (Thread.currentThread() == caller)))
                .get("/async", (req, res) -> {
                    Completion done = res.async();
                    Thread t = new Thread(() -> {
                        done.response().text(done.request().<String>attribute("user") + " async");
                        done.complete();
                    });
                    t.start();
                })
                .get("/copy", (req, res) -> {
                    Request copy = req.copy();
                    req.attribute("user", "changed");
                    res.text(copy.<String>attribute("user") + " " + req.<String>attribute("user"));
                })
                .get("/remove", (req, res) -> {
                    req.attribute("user", null);
                    res.text(String.valueOf(req.<String>attribute("user")));
                });
        try (TestClient c = TestClient.of(app)) {
            assertEquals("ann inner:ann", c.request("GET", "/inline", null, "X-User", "ann").text());
            assertEquals("null inner:null", c.get("/inline").text(), "nothing left from the previous request");
            assertEquals("bob inner:bob", c.request("GET", "/blocking", null, "X-User", "bob").text());
            assertEquals("cy false", c.request("GET", "/execution", null, "X-User", "cy").text());
            assertEquals("dee async", c.request("GET", "/async", null, "X-User", "dee").text());
            assertEquals("null async", c.get("/async").text());
            assertEquals("eve changed", c.request("GET", "/copy", null, "X-User", "eve").text());
            assertEquals("null", c.request("GET", "/remove", null, "X-User", "fay").text());
        }
    }
}
