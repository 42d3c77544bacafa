package dev.peregrine;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Filters, before/after, route groups, exception mapping and a custom 404, through {@link TestClient}. */
class FiltersTest {
    static final class Missing extends RuntimeException {
        Missing(String what) {
            super(what);
        }
    }

    private static Server.Builder app() {
        return Server.builder()
                .filter((req, res, next) -> {
                    res.header("X-Outer", "1");
                    next.handle(req, res);
                })
                .before((req, res) -> {
                    if (req.path().startsWith("/api/admin") && req.header("Authorization") == null) {
                        res.error(401);
                    }
                })
                .after((req, res) -> res.header("X-After", "done"))
                .exception(Missing.class, (e, req, res) -> res.status(404).text("no " + e.getMessage()))
                .notFound((req, res) -> res.status(404).rawJson("{\"error\":\"no route\"}"))
                .group("/api", g -> g
                        .get("/users", (req, res) -> res.text("users"))
                        .get("/users/{id}", (req, res) -> {
                            throw new Missing("user " + req.pathParam("id"));
                        })
                        .group("/admin", a -> a.get("/stats", (req, res) -> res.text("stats")))
                        .get("/boom", Execution.BLOCKING, (req, res) -> {
                            throw new IllegalStateException("a bug");
                        }));
    }

    @Test
    void filtersWrapRoutesInOrder() {
        try (TestClient c = TestClient.of(app())) {
            TestClient.Response r = c.get("/api/users");
            assertEquals("users", r.text());
            assertEquals("1", r.header("X-Outer"));
            assertEquals("done", r.header("X-After"));
            assertEquals(401, c.get("/api/admin/stats").status(), "before() answered: the route did not run");
            assertEquals("stats", c.request("GET", "/api/admin/stats", null, "Authorization", "x").text());
        }
    }

    @Test
    void exceptionsMapAndUnknownPathsGetTheCustomAnswer() {
        try (TestClient c = TestClient.of(app())) {
            TestClient.Response missing = c.get("/api/users/7");
            assertEquals(404, missing.status());
            assertEquals("no user 7", missing.text());
            assertEquals(500, c.get("/api/boom").status(), "unmapped exceptions stay 500, off the loop too");
            TestClient.Response none = c.get("/nowhere");
            assertEquals(404, none.status());
            assertEquals("{\"error\":\"no route\"}", none.text());
        }
    }
}
