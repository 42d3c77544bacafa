package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.ScriptedServer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code followRedirects(n)} over real sockets, against scripted servers and Peregrine, on both transports. */
class RedirectFollowTest {

    /** A server that answers with {@code reply(head)} and records each request head and body. */
    private static ScriptedServer recording(List<String> seen, java.util.function.Function<String, String> reply) throws Exception {
        return new ScriptedServer((c, n) -> {
            String head;
            while ((head = c.readRequest()) != null) {
                seen.add(head + new String(c.lastBody, StandardCharsets.ISO_8859_1));
                c.write(reply.apply(head));
            }
        });
    }

    private static String redirect(int status, String location) {
        return "HTTP/1.1 " + status + " Moved\r\nLocation: " + location + "\r\nContent-Length: 5\r\n\r\nmoved";
    }

    private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone";

    private static HttpClient client(Transport t, int follow) {
        return HttpClient.builder().transport(t).readTimeout(Duration.ofSeconds(10)).followRedirects(follow).build();
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void offByDefaultTheRedirectIsTheAnswer(Transport t) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (ScriptedServer s = recording(seen, h -> redirect(302, "/elsewhere"));
             HttpClient client = HttpClient.builder().transport(t).build()) {
            ClientResponse r = client.get(s.url("/a"));
            assertEquals(302, r.status());
            assertEquals("/elsewhere", r.header("Location"));
            assertEquals(1, seen.size());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void seeOtherBecomesAGetOnTheSameConnectionKeepingCredentials(Transport t) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (ScriptedServer s = recording(seen, h -> h.startsWith("POST /form ") ? redirect(303, "/result?id=7") : OK);
             HttpClient client = client(t, 5)) {
            ClientResponse r = client.execute(ClientRequest.builder("POST", s.url("/form")).header("Authorization", "Bearer t")
                    .header("Content-Type", "text/plain").body("payload").build());
            assertEquals(200, r.status());
            assertEquals("done", r.text());
            assertEquals(2, seen.size());
            assertTrue(seen.get(0).startsWith("POST /form HTTP/1.1\r\n") && seen.get(0).endsWith("payload"), seen.get(0));
            String second = seen.get(1);
            assertTrue(second.startsWith("GET /result?id=7 HTTP/1.1\r\n"), second);
            assertTrue(second.contains("Authorization: Bearer t\r\n"), "same origin keeps credentials: " + second);
            assertFalse(second.contains("Content-Length") || second.contains("Content-Type") || second.contains("payload"), second);
            assertEquals(1, s.accepted(), "the second hop reused the pooled connection");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void temporaryRedirectToAnotherOriginKeepsMethodAndBodyButNotCredentials(Transport t) throws Exception {
        List<String> seenB = new CopyOnWriteArrayList<>();
        List<String> seenA = new CopyOnWriteArrayList<>();
        try (ScriptedServer b = recording(seenB, h -> OK);
             ScriptedServer a = recording(seenA, h -> redirect(307, b.url("/moved")));
             HttpClient client = client(t, 5)) {
            ClientResponse r = client.execute(ClientRequest.builder("POST", a.url("/upload")).header("Authorization", "Bearer t")
                    .header("Cookie", "s=1").header("X-Trace", "abc").body("the body").build());
            assertEquals("done", r.text());
            assertEquals(1, seenA.size());
            String hop = seenB.get(0);
            assertTrue(hop.startsWith("POST /moved HTTP/1.1\r\nHost: 127.0.0.1:" + b.port() + "\r\n"), hop);
            assertTrue(hop.contains("Content-Length: 8\r\n") && hop.endsWith("the body"), hop);
            assertTrue(hop.contains("X-Trace: abc\r\n"), hop);
            assertFalse(hop.contains("Authorization") || hop.contains("Cookie"), "credentials stay with their origin: " + hop);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void oneHopTooManyFailsWithPhaseRedirectAfterExactlyNPlusOneRequests(Transport t) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (ScriptedServer s = recording(seen, h -> redirect(308, "/loop"));
             HttpClient client = client(t, 3)) {
            ClientException e = assertThrows(ClientException.class, () -> client.get(s.url("/start")));
            assertEquals(ClientException.Phase.REDIRECT, e.phase());
            assertTrue(e.getMessage().contains("more than 3 redirects"), e.getMessage());
            assertEquals(4, seen.size());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aLocationThatIsNotHttpFailsTheCallAndTheClientCarriesOn(Transport t) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (ScriptedServer s = recording(seen, h -> h.startsWith("GET /ftp ") ? redirect(301, "ftp://files/x") : OK);
             HttpClient client = client(t, 3)) {
            ClientException e = assertThrows(ClientException.class, () -> client.get(s.url("/ftp")));
            assertEquals(ClientException.Phase.REDIRECT, e.phase());
            assertEquals("127.0.0.1:" + s.port(), e.host());
            assertEquals("done", client.get(s.url("/fine")).text());
        }
    }

    /**
     * The total deadline spans the chain, not each hop. A slow server holds each answer {@code HOLD} ms,
     * more than half the total: two hops cannot both fit, so a client whose deadline spans the chain must
     * fail with TOTAL however fast or slow the machine (only lower bounds on time are relied on), while
     * one that gave each hop a fresh deadline would get the second answer. The order of what the server
     * saw is checked; whether the second hop was sent before the deadline depends on the machine, so it
     * is not required.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void theTotalTimeoutCoversEveryHop(Transport t) throws Exception {
        long total = 1_000;
        long hold = 600;
        java.util.concurrent.CountDownLatch stop = new java.util.concurrent.CountDownLatch(1);
        List<String> seen = new CopyOnWriteArrayList<>();
        try (ScriptedServer s = new ScriptedServer((c, n) -> {
            String head;
            while ((head = c.readRequest()) != null) {
                seen.add(head);
                try {
                    if (stop.await(hold, java.util.concurrent.TimeUnit.MILLISECONDS)) { // a slow server, not a wait for the test
                        return;
                    }
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
                c.write(head.startsWith("GET /go ") ? redirect(302, "/next") : OK);
            }
        }); HttpClient client = HttpClient.builder().transport(t).followRedirects(2).totalTimeout(Duration.ofMillis(total)).build()) {
            ClientException e = assertThrows(ClientException.class, () -> client.get(s.url("/go")));
            assertEquals(ClientException.Phase.TOTAL, e.phase(), "two answers of " + hold + " ms each cannot fit in " + total + " ms");
            assertTrue(seen.size() == 1 || seen.size() == 2, "seen: " + seen);
            assertTrue(seen.get(0).startsWith("GET /go "), seen.get(0));
            if (seen.size() == 2) {
                assertTrue(seen.get(1).startsWith("GET /next "), "the redirect was followed in order: " + seen);
            }
        } finally {
            stop.countDown();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void followsPeregrinesRedirects(Transport t) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/old", (req, res) -> res.status(301).header("Location", "/new").text("gone"))
                .put("/put-old", (req, res) -> res.status(308).header("Location", "/put-new").text(""))
                .put("/put-new", (req, res) -> res.text("put " + req.bodyString()))
                .get("/new", (req, res) -> res.text("new place"))
                .start();
             HttpClient client = client(t, 1)) {
            String base = "http://127.0.0.1:" + server.port();
            assertEquals("new place", client.get(base + "/old").text());
            assertEquals("put v", client.execute(ClientRequest.builder("PUT", base + "/put-old").body("v").build()).text());
            assertEquals(1, server.metrics().accepted);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void anHttpsServerRedirectingToHttpIsRefusedUnlessTheCallerAllowsIt(Transport t) throws Exception {
        dev.peregrine.tls.TlsConfig tls = dev.peregrine.tls.TlsConfig.selfSigned();
        try (Server plain = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .put("/landing", (req, res) -> res.text("in clear: " + req.bodyString())).start();
             Server secure = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).tls(tls)
                     .put("/go", (req, res) -> res.status(307).header("Location", "http://127.0.0.1:" + plain.port() + "/landing")
                             .text("")).start();
             HttpClient careful = HttpClient.builder().transport(t).followRedirects(2).sslContext(TrustingContext.of(tls.certificate())).build();
             HttpClient lax = HttpClient.builder().transport(t).followRedirects(2).allowRedirectDowngrade(true)
                     .sslContext(TrustingContext.of(tls.certificate())).build()) {
            ClientRequest put = ClientRequest.builder("PUT", "https://localhost:" + secure.port() + "/go").body("private").build();
            ClientException e = assertThrows(ClientException.class, () -> careful.execute(put));
            assertEquals(ClientException.Phase.REDIRECT, e.phase());
            assertEquals(0, plain.metrics().requests, "nothing went out in clear");
            assertEquals("in clear: private", lax.execute(put).text(), "the caller asked for it");
        }
    }
}
