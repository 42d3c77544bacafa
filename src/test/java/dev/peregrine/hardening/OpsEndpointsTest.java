package dev.peregrine.hardening;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code metricsEndpoint} and {@code healthEndpoints} over real sockets: the exposition follows the
 * server's counters, in both formats; readiness turns 503 the moment {@code close()} begins and the
 * server keeps serving for {@code drainDelay}.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class OpsEndpointsTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    /** The transport every server of this class runs on: each of the test kit's list in turn. */
    @Parameter
    String transport;

    private static HttpResponse<String> get(int port, String path, String accept) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (accept != null) {
            b.header("Accept", accept);
        }
        return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long sample(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + " (\\d+)$").matcher(text);
        assertTrue(m.find(), name + " in:\n" + text);
        return Long.parseLong(m.group(1));
    }

    @Test
    void metricsFollowTheCountersInBothFormats() throws Exception {
        try (Server server = Server.builder().transport(transport).port(0).host("127.0.0.1").threads(2)
                .get("/hello", (req, res) -> res.text("hi"))
                .metricsEndpoint("/metrics")
                .start()) {
            int port = server.port();
            for (int i = 0; i < 3; i++) {
                assertEquals(200, get(port, "/hello", null).statusCode());
            }
            try (RawClient bad = new RawClient(port)) {
                bad.send("GET /hello HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n");
                assertEquals(400, bad.read().status);
            }
            Await.until("the 400 counted", () -> server.metrics().rejected(400) == 1 && server.metrics().requests >= 3);

            HttpResponse<String> prom = get(port, "/metrics", null);
            assertEquals(200, prom.statusCode());
            assertEquals("text/plain; version=0.0.4; charset=utf-8", prom.headers().firstValue("Content-Type").orElse(""));
            String text = prom.body();
            assertTrue(sample(text, "peregrine_requests_total") >= 3, text);
            assertEquals(1, sample(text, "peregrine_rejected_total{http_response_status_code=\"400\"}"));
            assertEquals(0, sample(text, "peregrine_rejected_total{http_response_status_code=\"431\"}"));
            assertTrue(sample(text, "peregrine_network_io_bytes_total{network_io_direction=\"receive\"}") > 0);
            assertTrue(sample(text, "peregrine_connections_open") >= 1, "the scrape's own connection");
            assertTrue(sample(text, "jvm_memory_used_bytes{jvm_memory_type=\"heap\"}") > 0);
            assertTrue(text.contains("# TYPE peregrine_requests_total counter\n"), text);
            assertFalse(text.contains("# EOF"));

            HttpResponse<String> om = get(port, "/metrics", "application/openmetrics-text; version=1.0.0");
            assertEquals("application/openmetrics-text; version=1.0.0; charset=utf-8",
                    om.headers().firstValue("Content-Type").orElse(""));
            assertTrue(om.body().contains("# TYPE peregrine_requests counter\n"), om.body());
            assertTrue(om.body().contains("# UNIT peregrine_network_io_bytes bytes\n"), om.body());
            assertTrue(om.body().endsWith("\n# EOF\n"));
            // Each scrape is a request too: the counter moves between scrapes.
            assertTrue(sample(get(port, "/metrics", null).body(), "peregrine_requests_total") > sample(text, "peregrine_requests_total"));
        }
    }

    @Test
    void withoutDrainDelayCloseIsImmediateAndReadyIsUp() throws Exception {
        Server server = Server.builder().transport(transport).port(0).host("127.0.0.1").threads(1)
                .healthEndpoints("/health/live", "/health/ready").start();
        try {
            assertEquals(200, get(server.port(), "/health/live", null).statusCode());
            HttpResponse<String> ready = get(server.port(), "/health/ready", null);
            assertEquals(200, ready.statusCode());
            assertEquals("ready\n", ready.body());
            assertTrue(server.ready());
        } finally {
            server.close();
        }
        assertFalse(server.ready());
        assertTrue(RawClient.refuses(server.port()));
    }

    @Test
    void readinessTurns503FirstAndTheServerKeepsServingForTheDrainDelay() throws Exception {
        Server server = Server.builder().transport(transport).port(0).host("127.0.0.1").threads(1)
                .drainDelay(Duration.ofSeconds(4))
                .get("/hello", (req, res) -> res.text("hi"))
                .healthEndpoints("/health/live", "/health/ready").start();
        int port = server.port();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread closer = new Thread(() -> {
            try {
                server.close();
            } catch (Throwable t) {
                failed.set(t);
            }
        }, "closer");
        try (RawClient keptAlive = new RawClient(port)) {
            keptAlive.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(200, keptAlive.read().status);
            closer.start();
            // The probe sees 503 while the server still answers everything else, on new connections too.
            Await.until("readiness 503", () -> {
                try {
                    return get(port, "/health/ready", null).statusCode() == 503;
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            HttpResponse<String> during = get(port, "/hello", null);
            assertEquals(200, during.statusCode());
            assertEquals(200, get(port, "/health/live", null).statusCode());
            keptAlive.send("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n");
            RawResponse r = keptAlive.read();
            assertEquals(200, r.status);
            assertTrue(closer.isAlive(), "all of this happened within the drain, before the stop");
            closer.join(60_000);
            assertFalse(closer.isAlive());
            assertEquals(null, failed.get());
            assertTrue(RawClient.refuses(port), "stopped after the drain");
        } finally {
            server.close();
        }
    }

    @Test
    void drainDelayMustNotBeNegative() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Server.builder().transport(transport).drainDelay(Duration.ofMillis(-1)));
        assertTrue(e.getMessage().contains("drainDelay"), e.getMessage());
    }
}
