package dev.peregrine.web;

import dev.peregrine.Cors;

import dev.peregrine.Server;
import dev.peregrine.TestClient;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Cors}: the builder's refusals at the call, and the filter's answers through {@link TestClient}. */
class CorsTest {
    @Test
    void anyOriginWithCredentialsIsRefusedAtTheCall() {
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowAnyOrigin().allowCredentials(true));
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowCredentials(true).allowAnyOrigin());
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowCredentials(true).allowOrigins("https://a.example", "*"));
        Cors.builder().allowAnyOrigin().allowCredentials(false).build();
    }

    @Test
    void badSettingsAreRefusedAtTheCall() {
        assertThrows(IllegalStateException.class, () -> Cors.builder().build(), "no origin at all");
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowOrigins("https://a.example/"));
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowOrigins("a.example"));
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowMethods("GET POST"));
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowMethods());
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().allowHeaders("X-A\r\nX-B"));
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().exposeHeaders("a b"));
        assertThrows(IllegalArgumentException.class, () -> Cors.builder().maxAge(Duration.ofSeconds(-1)));
        Cors.builder().allowOrigins("null", "http://localhost:8080").build();
    }

    @Test
    void anyHeaderWithCredentialsEchoesTheRequestedNames() {
        Cors cors = Cors.builder().allowOrigin(o -> o.startsWith("https://")).allowHeaders("*").allowCredentials(true).build();
        try (TestClient c = TestClient.of(Server.builder().filter(cors).get("/a", (req, res) -> res.text("a")))) {
            TestClient.Response r = c.request("OPTIONS", "/a", null, "Origin", "https://x.example",
                    "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "x-one, x-two");
            assertEquals(204, r.status());
            assertEquals("https://x.example", r.header("Access-Control-Allow-Origin"));
            assertEquals("x-one, x-two", r.header("Access-Control-Allow-Headers"));
            TestClient.Response insecure = c.request("OPTIONS", "/a", null, "Origin", "http://x.example",
                    "Access-Control-Request-Method", "GET");
            assertNull(insecure.header("Access-Control-Allow-Origin"));
            TestClient.Response nonAscii = c.request("GET", "/a", null, "Origin", "https://\u00e9.example");
            assertEquals(200, nonAscii.status(), "an origin that cannot be echoed is simply not allowed");
            assertNull(nonAscii.header("Access-Control-Allow-Origin"));
        }
    }

    @Test
    void anyOriginAnswersStarForEveryOriginSoNothingVaries() {
        Cors cors = Cors.builder().allowOrigins("https://listed.example", "*").build();
        try (TestClient c = TestClient.of(Server.builder().filter(cors).get("/a", (req, res) -> res.text("a")))) {
            for (String origin : new String[] {"https://listed.example", "https://other.example"}) {
                TestClient.Response r = c.request("GET", "/a", null, "Origin", origin);
                assertEquals("*", r.header("Access-Control-Allow-Origin"), "one answer for all, or a cache would mix them");
                assertNull(r.header("Vary"));
            }
        }
    }

    @Test
    void everyResponseVariesByOriginWhenThePolicyDoes() {
        Cors cors = Cors.builder().allowOrigins("https://a.example").build();
        try (TestClient c = TestClient.of(Server.builder().filter(cors).get("/a", (req, res) -> res.text("a")))) {
            TestClient.Response r = c.get("/a");
            assertEquals("Origin", r.header("Vary"), "a cache must not serve this to a cross-origin request");
            assertNull(r.header("Access-Control-Allow-Origin"));
            TestClient.Response wrong = c.request("DELETE", "/a", null, "Origin", "https://a.example");
            assertEquals(405, wrong.status());
            assertEquals("https://a.example", wrong.header("Access-Control-Allow-Origin"), "the router's 405 is filtered");
            assertTrue(wrong.header("Allow").contains("GET"));
        }
    }

    @Test
    void aListedOriginMatchesExactlyNeverByPrefixWithCredentials() {
        Cors cors = Cors.builder().allowOrigins("https://app.example").allowMethods("GET", "DELETE").allowCredentials(true).build();
        try (TestClient c = TestClient.of(Server.builder().filter(cors).get("/a", (req, res) -> res.text("a")))) {
            TestClient.Response ok = c.request("GET", "/a", null, "Origin", "https://app.example");
            assertEquals("https://app.example", ok.header("Access-Control-Allow-Origin"));
            assertEquals("true", ok.header("Access-Control-Allow-Credentials"));
            for (String evil : new String[] {"https://app.example.evil.com", "https://app.example:8443", "https://app.example-evil.com",
                    "https://app.exampl", "https://app.example/", "https://app.example.", "http://app.example", "https://app.examplex"}) {
                TestClient.Response actual = c.request("GET", "/a", null, "Origin", evil);
                assertEquals(200, actual.status());
                assertNull(actual.header("Access-Control-Allow-Origin"), evil + " is another origin");
                assertNull(actual.header("Access-Control-Allow-Credentials"), evil);
                TestClient.Response preflight = c.request("OPTIONS", "/a", null, "Origin", evil, "Access-Control-Request-Method", "DELETE");
                assertNull(preflight.header("Access-Control-Allow-Origin"), evil + " is granted nothing");
                assertNull(preflight.header("Access-Control-Allow-Methods"), evil);
            }
        }
    }

    @Test
    void aPredicateSeesOnlyWellFormedOriginsAndTheSuffixRuleComparesLabels() {
        Cors naive = Cors.builder().allowOrigin(o -> o.endsWith(".example.com")).allowCredentials(true).build();
        try (TestClient c = TestClient.of(Server.builder().filter(naive).get("/a", (req, res) -> res.text("a")))) {
            assertEquals("https://app.example.com", c.request("GET", "/a", null, "Origin", "https://app.example.com")
                    .header("Access-Control-Allow-Origin"));
            for (String evil : new String[] {"https://evil.com#.example.com", "https://evil.com/.example.com",
                    "https://evil.com?.example.com", "https://user@evil.com.example.com:x", "https://evil.com:1.example.com",
                    "//evil.com.example.com", "https://evil.com .example.com"}) {
                assertNull(c.request("GET", "/a", null, "Origin", evil).header("Access-Control-Allow-Origin"), evil);
            }
        }
        var rule = Cors.subdomainsOf("https", "example.com");
        for (String ok : new String[] {"https://example.com", "https://app.example.com", "https://a.b.example.com:8443",
                "HTTPS://App.Example.COM"}) {
            assertTrue(rule.test(ok), ok);
        }
        for (String no : new String[] {"https://evilexample.com", "https://example.com.evil.net", "http://app.example.com",
                "https://evil.com#.example.com", "https://app.example.com/", "https://app.example.com:", "null", "https://.example.com.",
                "https://[::1]", "https://example.co"}) {
            assertTrue(!rule.test(no), no);
        }
        assertThrows(IllegalArgumentException.class, () -> Cors.subdomainsOf("https", ".example.com"));
        assertThrows(IllegalArgumentException.class, () -> Cors.subdomainsOf("https", "example.com/x"));
        Cors strict = Cors.builder().allowOrigin(Cors.subdomainsOf("https", "example.com")).allowCredentials(true).build();
        try (TestClient c = TestClient.of(Server.builder().filter(strict).get("/a", (req, res) -> res.text("a")))) {
            assertEquals("https://app.example.com", c.request("GET", "/a", null, "Origin", "https://app.example.com")
                    .header("Access-Control-Allow-Origin"));
            assertNull(c.request("GET", "/a", null, "Origin", "https://evilexample.com").header("Access-Control-Allow-Origin"));
        }
    }
}
