package dev.peregrine;

import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The service issue 23's new user wrote, all traps at once: filters, CORS, an exception mapper, a
 * status-recording {@link Response} wrapper, blocking routes declared both ways, wildcard file routes.
 * No handler marked off the loop runs on it, no file outside the root is served, no wrapper makes a
 * 500. Over real sockets (JDK HttpClient, raw bytes for the paths a client would normalise).
 */
class NewUserServiceTest {
    @TempDir
    Path dir;

    static final class NotFound extends RuntimeException {
        NotFound(String what) {
            super(what);
        }
    }

    private static boolean onLoop() {
        String t = Thread.currentThread().getName();
        return t.startsWith("peregrine-nio-") || t.startsWith("peregrine-epoll-");
    }

    @Test
    void theServiceBehavesAsDocumented() throws Exception {
        Path root = Files.createDirectories(dir.resolve("public"));
        Files.writeString(root.resolve("a.txt"), "public a");
        Files.writeString(dir.resolve("secret.txt"), "secret");
        List<String> recorded = new CopyOnWriteArrayList<>();
        try (Server s = Server.builder().port(0).threads(1)
                .filter(Cors.builder().allowOrigins("https://app.example").build())
                .filter((req, res, next) -> { // the usual status recorder
                    ResponseWrapperTest.Recording r = new ResponseWrapperTest.Recording(res);
                    next.handle(req, r);
                    recorded.add(req.path() + " " + r.status());
                })
                .before((req, res) -> req.attribute("user", req.header("X-User")))
                .after((req, res) -> res.header("X-Status", String.valueOf(res.status())))
                .exception(NotFound.class, (e, req, res) -> res.status(404).rawJson("{\"missing\":\"" + e.getMessage() + "\"}"))
                .get("/db", Handlers.blocking((req, res) -> res.text("db " + onLoop() + " " + req.attribute("user"))))
                .get("/report", Execution.BLOCKING, (req, res) -> res.text("report " + onLoop()))
                .get("/items/{id}", Execution.BLOCKING, (req, res) -> {
                    throw new NotFound("item " + req.pathParam("id"));
                })
                .get("/files/*", (req, res) -> res.sendFile(root, req.pathParam("*")))
                .get("/raw/*", Execution.BLOCKING, (req, res) -> {
                    Path p = root.resolve(req.pathParam("*")).normalize();
                    res.text(p.startsWith(root) && Files.isRegularFile(p) ? Files.readString(p) : "not inside");
                })
                .start()) {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + s.port();
            HttpResponse<String> db = client.send(HttpRequest.newBuilder(URI.create(base + "/db"))
                    .header("Origin", "https://app.example").header("X-User", "ann").build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("db false ann", db.body(), "a blocking marker behind CORS, a wrapper, before and after");
            assertEquals("https://app.example", db.headers().firstValue("Access-Control-Allow-Origin").orElse(""));
            assertEquals("200", db.headers().firstValue("X-Status").orElse(""));
            assertEquals("report false", client.send(HttpRequest.newBuilder(URI.create(base + "/report")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            HttpResponse<String> missing = client.send(HttpRequest.newBuilder(URI.create(base + "/items/7")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(404, missing.statusCode());
            assertEquals("{\"missing\":\"item 7\"}", missing.body());
            assertEquals("public a", client.send(HttpRequest.newBuilder(URI.create(base + "/files/a.txt")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            for (String path : new String[] {"/nowhere", "/files/none.txt"}) {
                assertEquals(404, client.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
                        HttpResponse.BodyHandlers.ofString()).statusCode(), path);
            }
            assertEquals(405, client.send(HttpRequest.newBuilder(URI.create(base + "/db")).DELETE().build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode(), "the router's 405 through the wrapper");
            String secret = dir.resolve("secret.txt").toString();
            for (String prefix : new String[] {"/files", "/raw"}) {
                for (String attack : new String[] {"/" + secret, "/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt",
                        "/%2Fetc/passwd", "//etc/passwd", "/a/../../secret.txt", "/..\\\\secret.txt", "/%5c..%5csecret.txt"}) {
                    try (RawClient c = new RawClient(s.port())) {
                        c.send("GET " + prefix + attack + " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n");
                        RawResponse r = c.read();
                        assertFalse(r.text().contains("secret"), prefix + attack + " served " + r.text());
                        assertNotEquals(500, r.status, prefix + attack);
                        assertNotEquals(200, r.status, prefix + attack + ": " + r.text());
                    }
                }
            }
        }
        assertTrue(recorded.contains("/nowhere 404"), recorded.toString());
        assertTrue(recorded.stream().noneMatch(l -> l.endsWith(" 500")), recorded.toString());
    }
}
