package dev.peregrine.e2e;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import dev.peregrine.Cors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Cors} over real sockets: preflights answered by the filter (raw socket), actual requests
 * from the JDK client, disallowed origins, the router's own answers, and CORS mounted on a group.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class CorsTest extends ServerTestBase {
    private static final String APP = "https://app.example";
    private final AtomicInteger optionsRouteCalls = new AtomicInteger();

    CorsTest(ServerFactory factory) {
        super(factory);
    }

    private void restart(UnaryOperator<Server.Builder> settings) {
        server.close();
        server = factory.start(settings);
    }

    private Cors strict() {
        return Cors.builder()
                .allowOrigins(APP)
                .allowOrigin(o -> o.endsWith(".trusted.example"))
                .allowMethods("GET", "POST", "DELETE")
                .allowHeaders("Content-Type", "X-Token")
                .exposeHeaders("X-Total")
                .allowCredentials(true)
                .maxAge(Duration.ofMinutes(10))
                .build();
    }

    private void startStrict() {
        restart(b -> b.filter(strict())
                .options("/counted", (req, res) -> {
                    optionsRouteCalls.incrementAndGet();
                    res.text("route");
                })
                .get("/total", (req, res) -> res.header("X-Total", "3").text("three"))
                .get("/slow", Execution.BLOCKING, (req, res) -> res.text("blocking")));
    }

    private RawResponse once(String request) throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(request));
            return RawResponse.read(s.getInputStream(), false);
        }
    }

    private static String preflight(String path, String origin, String method, String headers) {
        return "OPTIONS " + path + " HTTP/1.1\r\nHost: x\r\nOrigin: " + origin + "\r\nAccess-Control-Request-Method: "
                + method + "\r\n" + (headers == null ? "" : "Access-Control-Request-Headers: " + headers + "\r\n")
                + "Connection: close\r\n\r\n";
    }

    private static void assertNoCors(RawResponse r) {
        for (String name : r.headers.keySet()) {
            assertTrue(!name.startsWith("access-control-"), () -> "no CORS header expected: " + r);
        }
    }

    @Test
    void allowedPreflightIsAnsweredByTheFilterWithTheGrant() throws Exception {
        startStrict();
        RawResponse r = once(preflight("/counted", APP, "DELETE", "content-type, X-TOKEN"));
        assertEquals(204, r.status);
        assertEquals(APP, r.header("Access-Control-Allow-Origin"));
        assertEquals("GET, POST, DELETE", r.header("Access-Control-Allow-Methods"));
        assertEquals("Content-Type, X-Token", r.header("Access-Control-Allow-Headers"));
        assertEquals("true", r.header("Access-Control-Allow-Credentials"));
        assertEquals("600", r.header("Access-Control-Max-Age"));
        assertEquals("Origin", r.header("Vary"));
        assertEquals(0, optionsRouteCalls.get(), "a preflight never reaches the route");
        RawResponse plain = once("OPTIONS /counted HTTP/1.1\r\nHost: x\r\nOrigin: " + APP + "\r\nConnection: close\r\n\r\n");
        assertEquals("route", plain.text(), "an OPTIONS without Access-Control-Request-Method is the route's");
        assertEquals(1, optionsRouteCalls.get());
    }

    @Test
    void aPredicateOriginIsEchoedAndTheRoutersOwnOptionsAnswerIsFilteredToo() throws Exception {
        startStrict();
        // /plaintext has no OPTIONS route: the router's automatic answer runs inside the filter.
        RawResponse r = once(preflight("/plaintext", "https://a.trusted.example", "GET", null));
        assertEquals(204, r.status);
        assertEquals("https://a.trusted.example", r.header("Access-Control-Allow-Origin"));
        assertEquals("Content-Type, X-Token", r.header("Access-Control-Allow-Headers"), "the list, though none was asked for");
        // an unknown path: the 404 answer is filtered as well, so its preflight succeeds
        RawResponse missing = once(preflight("/no/such/path", APP, "POST", "content-type"));
        assertEquals(204, missing.status);
        assertEquals(APP, missing.header("Access-Control-Allow-Origin"));
    }

    @Test
    void disallowedOriginsMethodsAndHeadersGetNoGrant() throws Exception {
        startStrict();
        for (String request : List.of(
                preflight("/counted", "https://evil.example", "GET", null),
                preflight("/counted", "https://trusted.example.evil", "GET", null),
                preflight("/counted", APP, "PUT", null),
                preflight("/counted", APP, "post", null),
                preflight("/counted", APP, "GET", "content-type, x-other"))) {
            RawResponse r = once(request);
            assertEquals(204, r.status, request);
            assertNoCors(r);
            assertEquals("Origin", r.header("Vary"));
        }
        assertEquals(0, optionsRouteCalls.get(), "a refused preflight does not reach the route either");
    }

    @Test
    void actualRequestsFromTheJdkClient() throws Exception {
        startStrict();
        HttpResponse<String> ok = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/total"))).header("Origin", APP).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, ok.statusCode());
        assertEquals("three", ok.body());
        assertEquals(APP, ok.headers().firstValue("Access-Control-Allow-Origin").orElseThrow());
        assertEquals("true", ok.headers().firstValue("Access-Control-Allow-Credentials").orElseThrow());
        assertEquals("X-Total", ok.headers().firstValue("Access-Control-Expose-Headers").orElseThrow());
        assertEquals("Origin", ok.headers().firstValue("Vary").orElseThrow());

        HttpResponse<String> blocking = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/slow"))).header("Origin", APP).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("blocking", blocking.body());
        assertEquals(APP, blocking.headers().firstValue("Access-Control-Allow-Origin").orElseThrow(), "off the loop too");

        HttpResponse<String> evil = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/total"))).header("Origin", "https://evil.example").build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, evil.statusCode(), "CORS hides the answer from the page; the server still answers");
        Map<String, List<String>> headers = evil.headers().map();
        assertTrue(headers.keySet().stream().noneMatch(k -> k.toLowerCase().startsWith("access-control-")), headers::toString);

        HttpResponse<String> notFound = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/missing"))).header("Origin", APP).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(404, notFound.statusCode());
        assertEquals(APP, notFound.headers().firstValue("Access-Control-Allow-Origin").orElseThrow(), "the 404 is filtered");

        HttpResponse<String> sameOrigin = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/total"))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertTrue(sameOrigin.headers().firstValue("Access-Control-Allow-Origin").isEmpty());
    }

    @Test
    void mountedOnAGroupOnlyTheGroupAnswersCors() throws Exception {
        restart(b -> b.group("/api", api -> api
                .filter(Cors.builder().allowAnyOrigin().allowMethods("GET", "PUT").allowHeaders("*").build())
                .get("/items", (req, res) -> res.text("items"))));
        RawResponse pre = once(preflight("/api/items", "https://any.example", "PUT", "x-anything"));
        assertEquals(204, pre.status);
        assertEquals("*", pre.header("Access-Control-Allow-Origin"));
        assertEquals("*", pre.header("Access-Control-Allow-Headers"));
        assertNull(pre.header("Vary"), "any origin without credentials: the answer does not vary");
        RawResponse outside = once(preflight("/plaintext", "https://any.example", "GET", null));
        assertEquals(204, outside.status, "the router's own OPTIONS answer");
        assertEquals("GET, HEAD, OPTIONS", outside.header("Allow"));
        assertNoCors(outside);
        HttpResponse<String> get = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/api/items"))).header("Origin", "https://x.example").build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("items", get.body());
        assertEquals("*", get.headers().firstValue("Access-Control-Allow-Origin").orElseThrow());
    }
}
