package dev.peregrine.micrometer;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The binder against a real server over real sockets: counts move as requests are served. */
class PeregrineMetricsTest {

    @Test
    void metersFollowTheServersCounters() throws Exception {
        try (Server server = Server.builder().port(0).threads(1).host("127.0.0.1")
                .get("/hello", (req, res) -> res.text("hi"))
                .start()) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new PeregrineMetrics(server::metrics, Duration.ZERO).bindTo(registry);

            HttpClient client = HttpClient.newHttpClient();
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/hello")).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode());
            }
            // A bad request line is one of the server's own rejections: 400 and a close.
            try (RawClient c = new RawClient(server.port())) {
                assertEquals(400, c.send("GET /hello HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n").read().status);
            }

            FunctionCounter requests = registry.get("peregrine.requests").functionCounter();
            FunctionCounter rejected400 = registry.get("peregrine.rejected").tag("http.response.status_code", "400").functionCounter();
            FunctionCounter received = registry.get("peregrine.network.io").tag("network.io.direction", "receive").functionCounter();
            Gauge open = registry.get("peregrine.connections.open").gauge();
            assertNotNull(open);
            // The loop's counters are read with plain loads: poll until they are seen.
            Await.until(() -> requests.count() >= 5 && rejected400.count() == 1,
                    () -> "requests " + requests.count() + ", 400s " + rejected400.count() + "; " + server.metrics());
            assertTrue(received.count() > 5 * "GET /hello HTTP/1.1\r\n".length(), "bytes received: " + received.count());
            assertEquals("bytes", received.getId().getBaseUnit());
            assertEquals(0.0, registry.get("peregrine.rejected").tag("http.response.status_code", "505").functionCounter().count());
        }
    }

    @Test
    void requestDurationsAreBoundAsTimersPerRouteMethodAndStatus() throws Exception {
        try (Server server = Server.builder().port(0).threads(1).host("127.0.0.1").requestDurations(true)
                .get("/hello/{name}", (req, res) -> res.text("hi"))
                .start()) {
            HttpClient client = HttpClient.newHttpClient();
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/hello/a");
            assertEquals(200, client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            Await.until(() -> server.metrics().requestDurationCount("/hello/{name}", "GET", 200) == 1, server.metrics()::toString);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new PeregrineMetrics(server::metrics, Duration.ZERO).bindTo(registry);
            io.micrometer.core.instrument.FunctionTimer timer = registry.get("http.server.request.duration")
                    .tag("http.route", "/hello/{name}").tag("http.request.method", "GET")
                    .tag("http.response.status_code", "200").functionTimer();
            assertEquals(1.0, timer.count());
            assertTrue(timer.totalTime(java.util.concurrent.TimeUnit.SECONDS) > 0);
            for (int i = 0; i < 3; i++) {
                client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            }
            Await.until(() -> timer.count() == 4.0, () -> "count " + timer.count());
            // A series that appears after binding is registered at the next read of the binder's meters.
            URI missing = URI.create("http://127.0.0.1:" + server.port() + "/nowhere");
            assertEquals(404, client.send(HttpRequest.newBuilder(missing).build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            Await.until(() -> server.metrics().requestDurationCount("", "GET", 404) == 1, server.metrics()::toString);
            registry.get("peregrine.requests").functionCounter().count(); // a scrape reads the meters
            assertEquals(1.0, registry.get("http.server.request.duration").tag("http.route", "")
                    .tag("http.response.status_code", "404").functionTimer().count());
        }
    }

    @Test
    void snapshotsAreReusedWithinTheirAge() {
        int[] snapshots = {0};
        try (Server server = Server.builder().port(0).threads(1).host("127.0.0.1").start()) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new PeregrineMetrics(() -> {
                snapshots[0]++;
                return server.metrics();
            }, Duration.ofHours(1)).bindTo(registry);
            int afterBind = snapshots[0];
            registry.get("peregrine.requests").functionCounter().count();
            registry.get("peregrine.connections.accepted").functionCounter().count();
            registry.get("peregrine.buffers.lent").gauge().value();
            assertEquals(afterBind + 1, snapshots[0], "one snapshot serves every meter read within its age");
        }
    }
}
