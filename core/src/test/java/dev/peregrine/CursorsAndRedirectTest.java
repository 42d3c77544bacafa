package dev.peregrine;

import dev.peregrine.cookie.CookieCursor;
import dev.peregrine.form.FormCursor;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** {@code req.query().pairs()}, {@code req.form().pairs()}, {@code req.cookies().cursor()} and {@link Response#redirect}, through the real connection code. */
class CursorsAndRedirectTest {
    private static String walk(FormCursor c) {
        StringBuilder sb = new StringBuilder();
        while (c.next()) {
            sb.append(c.name()).append(c.hasValue() ? "=" : "").append(c.value()).append(';');
        }
        return sb.toString();
    }

    private static Server.Builder app() {
        return Server.builder()
                .get("/q", (req, res) -> res.text(walk(req.query().pairs()) + "|" + req.query().pairs().first("b")))
                .post("/form", (req, res) -> {
                    FormCursor c = req.form().pairs();
                    int tags = 0;
                    while (c.next()) {
                        tags += c.nameIs("tag") ? 1 : 0;
                    }
                    res.text(tags + " " + walk(req.form().pairs()));
                })
                .get("/cookies", (req, res) -> {
                    CookieCursor c = req.cookies().cursor();
                    StringBuilder sb = new StringBuilder();
                    while (c.next()) {
                        sb.append(c.name()).append('=').append(c.value()).append(';');
                    }
                    res.text(sb);
                })
                .get("/redirect", (req, res) -> res.redirect("/elsewhere?x=1"))
                .get("/redirect/{code}", (req, res) -> res.redirect("https://example.com/", Integer.parseInt(req.pathParam("code"))))
                .get("/bad-redirect", (req, res) -> {
                    try {
                        res.redirect("/a\r\nSet-Cookie: x=1");
                    } catch (IllegalArgumentException e) {
                        res.status(500).text("refused");
                    }
                });
    }

    @Test
    void queryPairs() {
        try (TestClient client = TestClient.of(app())) {
            assertEquals("a=1;b=x y;flag;a=3;|x y", client.get("/q?a=1&b=x+y&&flag&a=3").text());
            assertEquals("|null", client.get("/q").text());
        }
    }

    @Test
    void formPairs() {
        try (TestClient client = TestClient.of(app())) {
            TestClient.Response r = client.request("POST", "/form",
                    "tag=a&name=J%C3%B6rg&tag=b%26c".getBytes(StandardCharsets.US_ASCII),
                    "Content-Type", "application/x-www-form-urlencoded");
            assertEquals("2 tag=a;name=Jörg;tag=b&c;", r.text());
        }
    }

    @Test
    void cookieCursorReadsEveryCookieField() {
        try (TestClient client = TestClient.of(app())) {
            TestClient.Response r = client.request("GET", "/cookies", null, "Cookie", "a=1; b=\"2\"", "Cookie", "c=3; a=4");
            assertEquals("a=1;b=2;c=3;a=4;", r.text());
            assertEquals("", client.get("/cookies").text());
        }
    }

    @Test
    void redirects() {
        try (TestClient client = TestClient.of(app())) {
            TestClient.Response r = client.get("/redirect");
            assertEquals(302, r.status());
            assertEquals("/elsewhere?x=1", r.header("Location"));
            for (int code : new int[] {301, 303, 307, 308}) {
                TestClient.Response s = client.get("/redirect/" + code);
                assertEquals(code, s.status());
                assertEquals("https://example.com/", s.header("Location"));
            }
            assertEquals(500, client.get("/redirect/200").status()); // IllegalArgumentException from the handler
            TestClient.Response bad = client.get("/bad-redirect");
            assertEquals("refused", bad.text());
            assertNull(bad.header("Set-Cookie"));
            assertNull(bad.header("Location"));
        }
    }
}
