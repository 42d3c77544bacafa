package dev.peregrine.e2e;

import dev.peregrine.Handlers;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code http.server.request.duration} per route, method and status, over real sockets on every
 * transport: counts per series for inline, blocking and async handlers and the router's own answers,
 * and the Prometheus and OpenMetrics exposition of the histogram (cumulative buckets with {@code le},
 * {@code _sum}, {@code _count}).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class RequestDurationsTest extends ServerTestBase {
    private static final String FAMILY = "http_server_request_duration_seconds";

    RequestDurationsTest(ServerFactory factory) {
        super(factory);
    }

    @Override
    @BeforeEach
    void startServer() {
        server = factory.start(b -> b.requestDurations(true).metricsEndpoint("/metrics")
                .get("/users/{id}", (req, res) -> res.status(req.pathParam("id").equals("0") ? 404 : 200).text("u"))
                .get("/slow", Handlers.blocking((req, res) -> res.text("done")))
                .get("/hang", Handlers.blocking((req, res) -> {
                    hanging.countDown();
                    release.await();
                    res.text("too late");
                }))
                .post("/intake", Handlers.blocking((req, res) -> res.text("read")))
                .get("/stream", (req, res) -> res.stream(out -> {
                    out.put((byte) 's');
                    return false;
                }))
                .streamBodyThreshold(1000).maxStreamedBodySize(5000)
                .get("/later", (req, res) -> {
                    var done = res.async();
                    new Thread(() -> {
                        done.response().text("later");
                        done.complete();
                    }).start();
                }));
    }

    private final java.util.concurrent.CountDownLatch hanging = new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

    private int get(String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(url(path))).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void everyResponseIsCountedInItsSeries() throws Exception {
        for (int i = 1; i <= 5; i++) {
            assertEquals(200, get("/users/" + i));
        }
        assertEquals(404, get("/users/0"));
        assertEquals(200, get("/slow"));
        assertEquals(200, get("/later"));
        assertEquals(200, get("/later"));
        assertEquals(404, get("/nowhere"));
        try (Socket s = connect()) { // HEAD on a GET route, and a method outside the usual nine
            s.getOutputStream().write(RawClient.bytes("HEAD /users/7 HTTP/1.1\r\nHost: x\r\n\r\nBREW /users/7 HTTP/1.1\r\nHost: x\r\n\r\n"));
            assertEquals(200, RawResponse.read(s.getInputStream(), true).status);
            assertEquals(501, RawResponse.read(s.getInputStream()).status);
        }
        var m = server.metrics();
        assertEquals(5, m.requestDurationCount("/users/{id}", "GET", 200));
        assertEquals(1, m.requestDurationCount("/users/{id}", "GET", 404));
        assertEquals(1, m.requestDurationCount("/users/{id}", "HEAD", 200));
        assertEquals(1, m.requestDurationCount("/slow", "GET", 200));
        assertEquals(2, m.requestDurationCount("/later", "GET", 200));
        assertEquals(1, m.requestDurationCount("", "GET", 404)); // the router's own 404: no route
        assertEquals(1, m.requestDurationCount("", "_OTHER", 501));
    }

    /** Awaits {@code n} requests in a series: recorded before the response is encoded, read here by plain loads. */
    private void awaitCount(long n, String route, String method, int status) {
        Await.until(n + " in " + method + " " + route + " " + status,
                () -> server.metrics().requestDurationCount(route, method, status) == n);
    }

    /** One request on a connection of its own; returns the status of its answer. */
    private int once(String request) throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            return c.send(request).read().status;
        }
    }

    @Test
    void everyResponseIsCountedWhateverTheConnectionsFate() throws Exception {
        for (int i = 0; i < 10; i++) {
            assertEquals(200, once("GET /users/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
        }
        awaitCount(10, "/users/{id}", "GET", 200);
        for (int i = 0; i < 10; i++) {
            assertEquals(200, once("GET /users/1 HTTP/1.0\r\n\r\n"));
        }
        awaitCount(20, "/users/{id}", "GET", 200);
        for (int i = 0; i < 3; i++) { // streamed (unframed for HTTP/1.0) and blocking responses, on their last request
            assertEquals(200, once("GET /stream HTTP/1.0\r\n\r\n"));
            assertEquals(200, once("GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
        }
        awaitCount(3, "/stream", "GET", 200);
        awaitCount(3, "/slow", "GET", 200);

        // Rejected from the head after routing: the body is above maxStreamedBodySize.
        assertEquals(413, once("POST /intake HTTP/1.1\r\nHost: x\r\nContent-Length: 10000\r\n\r\n"));
        awaitCount(1, "/intake", "POST", 413);

        // The client resets while its handler runs: counted as 499 (client closed request), once.
        try (RawClient c = new RawClient(server.port())) {
            c.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n");
            hanging.await();
            c.reset();
            awaitCount(1, "/hang", "GET", 499);
        } finally {
            release.countDown();
        }
        Await.until("every connection closed", () -> server.metrics().open == 0);
        assertEquals(1, server.metrics().requestDurationCount("/hang", "GET", 499));
        assertEquals(0, server.metrics().requestDurationCount("/hang", "GET", 200), "the late answer is not counted again");
    }

    @Test
    void prometheusTextHasTheHistogram() throws Exception {
        for (int i = 1; i <= 3; i++) {
            assertEquals(200, get("/users/" + i));
        }
        String text = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/metrics"))).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(text.contains("# TYPE " + FAMILY + " histogram\n"), text);
        String labels = "http_route=\"/users/{id}\",http_request_method=\"GET\",http_response_status_code=\"200\"";
        List<String> les = List.of("0.005", "0.01", "0.025", "0.05", "0.075", "0.1", "0.25", "0.5", "0.75", "1.0", "2.5",
                "5.0", "7.5", "10.0", "+Inf");
        long previous = 0;
        for (String le : les) {
            Matcher b = Pattern.compile(Pattern.quote(FAMILY + "_bucket{" + labels + ",le=\"" + le + "\"} ") + "(\\d+)\n").matcher(text);
            assertTrue(b.find(), "bucket le=" + le + " in\n" + text);
            long cumulative = Long.parseLong(b.group(1));
            assertTrue(cumulative >= previous, "buckets are cumulative");
            previous = cumulative;
        }
        assertEquals(3, previous, "+Inf counts every request");
        assertTrue(text.contains(FAMILY + "_count{" + labels + "} 3\n"), text);
        Matcher sum = Pattern.compile(Pattern.quote(FAMILY + "_sum{" + labels + "} ") + "([0-9.E-]+)\n").matcher(text);
        assertTrue(sum.find(), text);
        assertTrue(Double.parseDouble(sum.group(1)) > 0);

        String open = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/metrics")))
                .header("Accept", "application/openmetrics-text; version=1.0.0").build(), HttpResponse.BodyHandlers.ofString()).body();
        assertTrue(open.contains("# TYPE " + FAMILY + " histogram\n# UNIT " + FAMILY + " seconds\n"), open);
        assertTrue(open.endsWith("# EOF\n"));
    }

    @Test
    void offByDefault() throws IOException {
        server.close();
        server = factory.start(b -> b.metricsEndpoint("/metrics"));
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
            RawResponse.read(s.getInputStream());
            String text = RawResponse.read(s.getInputStream()).text();
            assertFalse(text.contains(FAMILY), text);
        }
        assertEquals(0, server.metrics().requestDurationCount("/plaintext", "GET", 200));
    }
}
