package dev.peregrine.web;

import dev.peregrine.Execution;
import dev.peregrine.Server;
import dev.peregrine.TestClient;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link RequestIds}: the id layout, validation of incoming ids, and the server's use of them through {@link TestClient}. */
class RequestIdsTest {
    @Test
    void generatedIdsArePrefixDashCounter() {
        RequestIds ids = new RequestIds(0x123456789abcL);
        assertEquals("123456789abc-1", ids.next());
        assertEquals("123456789abc-2", ids.next());
        for (int i = 3; i < 16; i++) {
            ids.next();
        }
        assertEquals("123456789abc-10", ids.next());
        Set<String> seen = new HashSet<>();
        RequestIds a = new RequestIds();
        RequestIds b = new RequestIds();
        for (int i = 0; i < 1000; i++) {
            assertTrue(seen.add(a.next()));
            assertTrue(seen.add(b.next()), "two loops never give the same id");
        }
    }

    @Test
    void incomingIdsAreKeptOnlyWhenTokenIshAndBounded() {
        RequestIds ids = new RequestIds(1);
        assertEquals("abc-123_x.y:z+/=@", ids.idFor("abc-123_x.y:z+/=@"));
        String longest = "a".repeat(RequestIds.MAX_LENGTH);
        assertEquals(longest, ids.idFor(longest));
        for (String bad : new String[] {"", "a".repeat(RequestIds.MAX_LENGTH + 1), "has space", "quote\"", "semi;colon",
                "new\nline", "caf\u00e9", "<script>"}) {
            assertFalse(RequestIds.valid(bad), bad);
            assertTrue(ids.idFor(bad).startsWith("000000000001-"), "replaced: " + bad);
        }
        assertTrue(ids.idFor(null).startsWith("000000000001-"));
    }

    @Test
    void theServerEchoesTheIdOnEveryKindOfAnswer() {
        Server.Builder app = Server.builder().requestIds(true)
                .get("/id", (req, res) -> res.text(req.requestId()))
                .get("/blocking", Execution.BLOCKING, (req, res) -> res.text(req.requestId()))
                .get("/boom", (req, res) -> {
                    throw new IllegalStateException("test: an unmapped failure");
                });
        try (TestClient c = TestClient.of(app)) {
            TestClient.Response r = c.get("/id");
            assertEquals(r.text(), r.header("X-Request-Id"));
            TestClient.Response next = c.get("/id");
            assertNotEquals(r.text(), next.text());
            TestClient.Response kept = c.request("GET", "/blocking", null, "X-Request-Id", "client-42");
            assertEquals("client-42", kept.text());
            assertEquals("client-42", kept.header("X-Request-Id"));
            TestClient.Response replaced = c.request("GET", "/id", null, "X-Request-Id", "bad id");
            assertNotEquals("bad id", replaced.text());
            assertEquals(replaced.text(), replaced.header("X-Request-Id"));
            assertEquals(1, c.request("GET", "/missing", null, "X-Request-Id", "nf-1").headers("X-Request-Id").size());
            assertEquals("nf-1", c.request("GET", "/missing", null, "X-Request-Id", "nf-1").header("X-Request-Id"));
            TestClient.Response failed = c.request("GET", "/boom", null, "X-Request-Id", "boom-1");
            assertEquals(500, failed.status());
            assertEquals("boom-1", failed.header("X-Request-Id"), "a 500 still names the request");
        }
        try (TestClient c = TestClient.of(Server.builder().get("/id", (req, res) -> res.text(String.valueOf(req.requestId()))))) {
            TestClient.Response off = c.request("GET", "/id", null, "X-Request-Id", "x");
            assertEquals("null", off.text(), "off by default");
            assertNull(off.header("X-Request-Id"));
        }
    }
}
