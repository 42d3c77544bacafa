package dev.peregrine;

import dev.peregrine.web.AccessLog;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RouteGroup's methods with an Execution, TestClient's ops endpoints, the access log's quoted "-". */
class SmallOnesTest {
    @Test
    void everyGroupMethodTakesAnExecution() {
        Thread caller = Thread.currentThread(); // TestClient's loop
        Handler where = (req, res) -> res.text(req.method() + " " + (Thread.currentThread() == caller ? "loop" : "off"));
        Server.Builder app = Server.builder().group("/api", g -> g
                .get("/r", Execution.BLOCKING, where)
                .post("/r", Execution.BLOCKING, where)
                .put("/r", Execution.BLOCKING, where)
                .delete("/r", Execution.BLOCKING, where)
                .patch("/r", Execution.BLOCKING, where)
                .options("/r", Execution.BLOCKING, where)
                .put("/l", Execution.LOOP, where));
        try (TestClient c = TestClient.of(app)) {
            for (String m : List.of("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS")) {
                assertEquals(m + " off", c.request(m, "/api/r", null).text());
            }
            assertEquals("PUT loop", c.request("PUT", "/api/l", null).text());
        }
    }

    @Test
    void testClientServesTheMetricsAndHealthEndpoints() {
        Server.Builder app = Server.builder().metricsEndpoint("/metrics").healthEndpoints("/health/live", "/health/ready")
                .get("/hi", (req, res) -> res.text("hi"));
        try (TestClient c = TestClient.of(app)) {
            c.get("/hi");
            TestClient.Response m = c.get("/metrics");
            assertEquals(200, m.status());
            assertTrue(m.text().contains("requests"), m.text());
            assertEquals("live\n", c.get("/health/live").text());
            assertEquals("ready\n", c.get("/health/ready").text());
        }
        try (Server s = app.port(0).threads(1).start()) { // the same builder still starts: endpoints registered once
            assertTrue(s.port() > 0);
        }
    }

    @Test
    void aMissingRefererIsAQuotedDash() {
        List<String> lines = new CopyOnWriteArrayList<>();
        AccessLog log = AccessLog.builder().to(lines::add).build();
        try (TestClient c = TestClient.of(Server.builder().accessLog(log).get("/hi", (req, res) -> res.text("hi")))) {
            c.get("/hi");
            c.request("GET", "/hi", null, "Referer", "https://r.example/", "User-Agent", "ua");
        }
        assertEquals(2, lines.size(), lines.toString());
        assertTrue(lines.get(0).contains("\" 200 2 \"-\" \"-\" "), lines.get(0));
        assertTrue(lines.get(1).contains("\" 200 2 \"https://r.example/\" \"ua\" "), lines.get(1));
    }
}
