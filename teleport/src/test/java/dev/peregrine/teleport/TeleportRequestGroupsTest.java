package dev.peregrine.teleport;

import dev.peregrine.Handlers;
import dev.peregrine.Headers;
import dev.peregrine.Request;
import dev.peregrine.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The request's accessor groups ({@code req.headers()}, {@code query()}, {@code form()},
 * {@code cookies()}) on the teleport view, inline and blocking: the same answers as over HTTP/1.1
 * (the e2e {@code RequestGroupsTest} covers every method there and over HTTP/2).
 */
class TeleportRequestGroupsTest {
    private static final String GET = "GET /g?name=J%C3%BCrgen&x=a+b&x=second&flag HTTP/1.1\r\nHost: t\r\n"
            + "X-Rep: one\r\nx-rep: two\r\nCookie: sid=abc; theme=dark\r\nCookie: sid=second\r\n\r\n";
    private static final String EXPECTED = "one|one|true|false|null|[one, two]|2|Jürgen|a b||null|[a b, second]"
            + "|{name=[Jürgen], x=[a b, second], flag=[]}|4|name=J%C3%BCrgen&x=a+b&x=second&flag|abc|null|{sid=abc, theme=dark}";
    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String describe(Request req) {
        Headers h = req.headers();
        int reps = 0;
        for (int i = 0; i < h.size(); i++) {
            reps += h.name(i).toString().equalsIgnoreCase("x-rep") ? 1 : 0;
        }
        int pairs = 0;
        for (var c = req.query().pairs(); c.next(); ) {
            pairs++;
        }
        return String.join("|", h.get("X-REP"), String.valueOf(h.view("x-rep")), String.valueOf(h.has("Cookie")),
                String.valueOf(h.has("absent")), String.valueOf(h.get("absent")), String.valueOf(h.all("X-Rep")),
                String.valueOf(reps), req.query().get("name"), req.query().get("x"), req.query().get("flag"),
                String.valueOf(req.query().get("absent")), String.valueOf(req.query().all("x")),
                String.valueOf(req.query().map()), String.valueOf(pairs), req.rawQuery(), req.cookies().get("sid"),
                String.valueOf(req.cookies().get("absent")), String.valueOf(req.cookies().map()));
    }

    @Test
    void theGroupsAnswerOnTheTeleportView() throws Exception {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).teleport(0)
                .get("/g", (req, res) -> res.text(describe(req)))
                .get("/g/blocking", Handlers.blocking((req, res) -> res.text(describe(req))))
                .post("/f", (req, res) -> res.text(req.form().get("a") + " " + req.form().all("a") + " " + req.form().map()))
                .start();
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(1, GET), TestPeer.request(2, GET.replace("/g?", "/g/blocking?")),
                    TestPeer.request(3, "POST /f HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                            + "Content-Length: 15\r\n\r\na=1&b=x+y&a=%32"));
            java.util.Map<Integer, String> got = new java.util.HashMap<>();
            for (int i = 0; i < 3; i++) {
                TestPeer.Got g = p.read();
                assertEquals(200, g.status(), g.text());
                got.put(g.id(), new String(g.body().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), java.nio.charset.StandardCharsets.UTF_8));
            }
            assertEquals(EXPECTED, got.get(1));
            assertEquals(EXPECTED, got.get(2));
            assertEquals("1 [1, 2] {a=[1, 2], b=[x y]}", got.get(3));
        }
    }
}
