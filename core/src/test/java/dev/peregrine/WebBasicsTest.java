package dev.peregrine;

import dev.peregrine.cookie.CookieCursor;
import dev.peregrine.form.FormCursor;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Query lists, urlencoded forms, cookies in and out: through the real server code ({@link TestClient}). */
class WebBasicsTest {
    private static Server.Builder app() {
        return Server.builder()
                .get("/q", (req, res) -> res.text(req.query().all("tag") + " " + req.query().map()))
                .post("/form", (req, res) -> res.text(req.form().get("name") + " " + req.form().map()))
                .get("/cookies", (req, res) -> res
                        .cookie(Cookie.of("visited", "1").path("/").httpOnly().sameSite(Cookie.SameSite.LAX))
                        .cookie(Cookie.of("theme", "dark").maxAge(Duration.ofDays(1)).secure())
                        .text(req.cookies().get("session") + " " + req.cookies().map()));
    }

    @Test
    void queryParametersWithEveryValue() {
        try (TestClient c = TestClient.of(app())) {
            assertEquals("[a, b c] {tag=[a, b c], x=[], é=[1]}", c.get("/q?tag=a&tag=b+c&x&%C3%A9=1&&").text());
            assertEquals("[] {}", c.get("/q").text());
        }
    }

    @Test
    void urlencodedForms() {
        try (TestClient c = TestClient.of(app())) {
            TestClient.Response r = c.request("POST", "/form", "name=J%C3%BCrgen+X&tags=1&tags=2".getBytes(StandardCharsets.UTF_8),
                    "Content-Type", "application/x-www-form-urlencoded; charset=UTF-8");
            assertEquals("Jürgen X {name=[Jürgen X], tags=[1, 2]}", r.text());
            TestClient.Response wrong = c.request("POST", "/form", "{}".getBytes(StandardCharsets.UTF_8), "Content-Type", "application/json");
            assertEquals(415, wrong.status(), "a JSON body read as a form: 415 Unsupported Media Type, no stack trace");
        }
    }

    @Test
    void aFormPastItsLimitsIs413AndAMalformedOne400EvenUncaught() {
        Server.Builder app = app().get("/bad", (req, res) -> {
            throw new dev.peregrine.form.BadFormException("no boundary");
        });
        try (TestClient c = TestClient.of(app)) {
            String many = "a=1&".repeat(dev.peregrine.form.FormCursor.DEFAULT_MAX_PAIRS + 1);
            assertEquals(413, c.request("GET", "/q?" + many, null).status());
            assertEquals(200, c.request("GET", "/q?" + "a=1&".repeat(10), null).status());
            assertEquals(400, c.request("GET", "/bad", null).status());
        }
    }

    @Test
    void cookiesInAndSetCookieOut() {
        try (TestClient c = TestClient.of(app())) {
            TestClient.Response r = c.request("GET", "/cookies", null, "Cookie", "session=abc; theme=\"light\"; junk; session=later");
            assertEquals("abc {session=abc, theme=light, junk=}", r.text(), "as CookieCursor (and Go) read it: a pair without = is a name with an empty value");
            assertEquals(List.of("visited=1; Path=/; HttpOnly; SameSite=Lax", "theme=dark; Max-Age=86400; Secure"), r.headers("Set-Cookie"));
        }
    }

    @Test
    void cookiesAreCheckedAtTheCall() {
        assertThrows(IllegalArgumentException.class, () -> Cookie.of("bad name", "v"));
        assertThrows(IllegalArgumentException.class, () -> Cookie.of("n", "a;b"));
        assertThrows(IllegalArgumentException.class, () -> Cookie.of("n", "a\r\nSet-Cookie: x=y"));
        assertThrows(IllegalArgumentException.class, () -> Cookie.of("n", "v").path("/a;Domain=evil"));
        assertEquals("n=\"quoted\"; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; Partitioned",
                Cookie.of("n", "\"quoted\"").expires(Instant.EPOCH).partitioned().toString());
    }

    /** A JSON message type for {@code bodyAs}. */
    public static final class Item {
        public String name;
        public int count;
    }

    @Test
    void jsonThroughJacksonFoundOnTheClassPath() {
        try (TestClient c = TestClient.of(Server.builder()
                .post("/items", (req, res) -> {
                    Item item;
                    try {
                        item = req.bodyAs(Item.class);
                    } catch (java.io.IOException e) {
                        res.error(400);
                        return;
                    }
                    res.json(Map.of("name", item.name, "doubled", item.count * 2));
                }))) {
            TestClient.Response r = c.request("POST", "/items", "{\"name\":\"a\",\"count\":21}".getBytes(StandardCharsets.UTF_8),
                    "Content-Type", "application/json");
            assertEquals("application/json", r.header("Content-Type"));
            assertTrue(r.text().contains("\"doubled\":42") && r.text().contains("\"name\":\"a\""), r.text());
            assertEquals(400, c.request("POST", "/items", "{oops".getBytes(StandardCharsets.UTF_8)).status());
        }
    }

    @Test
    void codecsOnTheirOwn() {
        Map<String, List<String>> m = FormCursor.of("a=1&a=2&b=%zz&c=%41").toMap();
        assertEquals(List.of("1", "2"), m.get("a"));
        assertEquals("%zz", m.get("b").get(0), "an invalid escape is kept as it is");
        assertEquals("A", m.get("c").get(0));
        assertNull(CookieCursor.of("a=b").first("x"));
        assertEquals(Map.of("a", "b", "flag", ""), CookieCursor.of(";;=x; =y; a=b; flag; a=c").toMap(),
                "empty names skipped, a name without '=' has an empty value, the first of repeated names wins");
    }
}
