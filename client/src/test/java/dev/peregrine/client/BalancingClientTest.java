package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.testing.ScriptedServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The balancer over real servers: spread by pending calls, ejection of fast-failing upstreams (counted
 * in calls, timed by an injected clock), recovery after the backoff, live changes and the health probe.
 */
class BalancingClientTest {
    private static final long SECOND = 1_000_000_000L;
    private final AtomicLong clock = new AtomicLong(1_000 * SECOND);

    private static Server server(String name, AtomicBoolean failing) {
        return Server.builder().host("127.0.0.1").port(0).threads(1)
                .get("/who", (req, res) -> {
                    if (failing != null && failing.get()) {
                        res.status(503).text(name + " down");
                    } else {
                        res.text(name);
                    }
                })
                .get("/health", (req, res) -> res.status(failing != null && failing.get() ? 503 : 200).text(name))
                .start();
    }

    private static String origin(Server s) {
        return "http://127.0.0.1:" + s.port();
    }

    private static int closedPort() throws Exception {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static Upstream upstream(BalancingClient lb, String origin) {
        for (Upstream u : lb.upstreams()) {
            if (u.origin().toString().equals(origin)) {
                return u;
            }
        }
        throw new AssertionError("no upstream " + origin);
    }

    @Test
    void aBackendRefusingConnectionsIsEjectedAfterOneCallAndItsCallGoesElsewhere() throws Exception {
        String dead = "http://127.0.0.1:" + closedPort();
        try (Server a = server("a", null); HttpClient http = HttpClient.builder().build();
             BalancingClient lb = BalancingClient.builder().clock(clock::get)
                     .upstream(dead, http).upstream(origin(a), http).build()) {
            for (int i = 0; i < 100; i++) {
                assertEquals("a", lb.execute(ClientRequest.get("http://service/who")).text());
            }
            List<CompletableFuture<ClientResponse>> burst = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                burst.add(lb.send(ClientRequest.get("http://service/who")));
            }
            for (CompletableFuture<ClientResponse> f : burst) {
                assertEquals("a", f.get(20, TimeUnit.SECONDS).text());
            }
            Upstream d = upstream(lb, dead);
            assertEquals(1, d.sent(), "the refusing backend drew one call, then none");
            assertEquals(Upstream.State.EJECTED, d.state());
            assertEquals(300, upstream(lb, origin(a)).sent());
        }
    }

    @Test
    void aBackendFailingFastWith5xxDrawsNoLoadFromConcurrentCallers() throws Exception {
        AtomicBoolean failing = new AtomicBoolean(true);
        try (Server bad = server("bad", failing); Server good = server("good", null); HttpClient http = HttpClient.builder().build();
             BalancingClient lb = BalancingClient.builder().clock(clock::get).failureIf(r -> r.status() >= 500)
                     .upstream(origin(bad), http).upstream(origin(good), http).build()) {
            List<Thread> callers = new ArrayList<>();
            AtomicLong fiveHundreds = new AtomicLong();
            for (int t = 0; t < 4; t++) {
                Thread caller = new Thread(() -> {
                    for (int i = 0; i < 100; i++) {
                        try {
                            if (lb.execute(ClientRequest.get("http://service/who")).status() == 503) {
                                fiveHundreds.incrementAndGet();
                            }
                        } catch (ClientException e) {
                            throw new AssertionError(e);
                        }
                    }
                });
                callers.add(caller);
                caller.start();
            }
            for (Thread caller : callers) {
                caller.join(60_000);
            }
            Upstream b = upstream(lb, origin(bad));
            assertTrue(b.sent() >= 1 && b.sent() <= 4, "at most one call per caller before the ejection: " + b);
            assertEquals(b.sent(), fiveHundreds.get(), "the 503s reach their callers as responses");
            assertEquals(400 - b.sent(), upstream(lb, origin(good)).sent());
            assertEquals(Upstream.State.EJECTED, b.state());
        }
    }

    @Test
    void anEjectedBackendGetsOneTrialAfterEachDoublingBackoffAndRecoversWhenItAnswers() throws Exception {
        AtomicBoolean failing = new AtomicBoolean(true);
        try (Server b = server("b", failing); Server a = server("a", null); HttpClient http = HttpClient.builder().build();
             BalancingClient lb = BalancingClient.builder().clock(clock::get).failureIf(r -> r.status() >= 500)
                     .ejection(Duration.ofSeconds(1), Duration.ofSeconds(8))
                     .upstream(origin(b), http).upstream(origin(a), http).build()) {
            Upstream ub = upstream(lb, origin(b));
            assertEquals(503, lb.execute(ClientRequest.get("http://service/who")).status());
            assertEquals(Upstream.State.EJECTED, ub.state());
            assertEquals(1, ub.ejections());
            for (int i = 0; i < 10; i++) {
                assertEquals("a", lb.execute(ClientRequest.get("http://service/who")).text());
            }
            assertEquals(1, ub.sent());

            clock.addAndGet(SECOND); // the first ejection (1 s) is over: one trial, which fails again
            assertEquals(503, lb.execute(ClientRequest.get("http://service/who")).status());
            assertEquals(2, ub.sent());
            assertEquals(2, ub.ejections());
            assertEquals(clock.get() + 2 * SECOND, ub.ejectedUntilNanos(), "the second ejection lasts twice as long");

            clock.addAndGet(SECOND + SECOND / 2); // 1.5 s of 2 s: still out
            for (int i = 0; i < 10; i++) {
                assertEquals("a", lb.execute(ClientRequest.get("http://service/who")).text());
            }
            assertEquals(2, ub.sent());

            failing.set(false);
            clock.addAndGet(SECOND / 2); // over: the trial is answered and b is back
            assertEquals("b", lb.execute(ClientRequest.get("http://service/who")).text());
            assertEquals(Upstream.State.HEALTHY, ub.state());
            assertEquals(0, ub.ejections());
            for (int i = 0; i < 10; i++) {
                lb.execute(ClientRequest.get("http://service/who"));
            }
            assertTrue(ub.sent() >= 8, "b takes its share again: " + ub);
        }
    }

    @Test
    void backoffIsCappedAtTheMaximum() throws Exception {
        String dead = "http://127.0.0.1:" + closedPort();
        try (Server a = server("a", null); HttpClient http = HttpClient.builder().build();
             BalancingClient lb = BalancingClient.builder().clock(clock::get).ejection(Duration.ofSeconds(1), Duration.ofSeconds(4))
                     .upstream(dead, http).upstream(origin(a), http).build()) {
            Upstream d = upstream(lb, dead);
            long[] expected = {1, 2, 4, 4, 4};
            for (long seconds : expected) {
                assertEquals("a", lb.execute(ClientRequest.get("http://service/who")).text()); // the trial fails over to a
                assertEquals(clock.get() + seconds * SECOND, d.ejectedUntilNanos());
                clock.set(d.ejectedUntilNanos());
            }
            assertEquals(5, d.sent());
        }
    }

    @Test
    void theUpstreamWithFewerCallsPendingGetsTheNext() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (ScriptedServer slow = new ScriptedServer((c, n) -> {
            c.readRequest();
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            c.write("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nslow");
        }); Server fast = server("fast", null); HttpClient http = HttpClient.builder().build();
             BalancingClient lb = BalancingClient.builder().clock(clock::get)
                     .upstream("http://127.0.0.1:" + slow.port(), http).upstream(origin(fast), http).build()) {
            CompletableFuture<ClientResponse> stuck = lb.send(ClientRequest.get("http://service/who"));
            for (int i = 0; i < 20; i++) {
                assertEquals("fast", lb.execute(ClientRequest.get("http://service/who")).text());
            }
            Upstream s = upstream(lb, "http://127.0.0.1:" + slow.port());
            assertEquals(1, s.pending());
            assertEquals(1, s.sent());
            release.countDown();
            assertEquals("slow", stuck.get(20, TimeUnit.SECONDS).text());
            assertEquals(0, s.pending());
        } finally {
            release.countDown();
        }
    }

    @Test
    void upstreamsAreAddedAndRemovedLive() throws Exception {
        try (Server a = server("a", null); Server b = server("b", null); HttpClient http = HttpClient.builder().build();
             PipelineClient pipe = PipelineClient.on(http).build();
             BalancingClient lb = BalancingClient.builder().clock(clock::get).upstream(origin(a), http).build()) {
            for (int i = 0; i < 10; i++) {
                assertEquals("a", lb.execute(ClientRequest.get("http://service/who")).text());
            }
            lb.add(origin(b), pipe); // a pipelining client behind this one
            assertThrows(IllegalArgumentException.class, () -> lb.add(origin(b), http));
            for (int i = 0; i < 10; i++) {
                assertEquals("b", lb.execute(ClientRequest.get("http://service/who")).text(), "ties go to the fewest sent");
            }
            for (int i = 0; i < 10; i++) {
                lb.execute(ClientRequest.get("http://service/who"));
            }
            assertEquals(15, upstream(lb, origin(a)).sent());
            assertEquals(15, upstream(lb, origin(b)).sent());
            assertTrue(lb.remove(origin(a)));
            assertFalse(lb.remove(origin(a)));
            for (int i = 0; i < 10; i++) {
                assertEquals("b", lb.execute(ClientRequest.get("http://service/who")).text());
            }
            assertEquals(1, lb.upstreams().size());
            assertEquals(15, a.metrics().requests, "a removed upstream gets nothing more");
            assertTrue(lb.remove(origin(b)));
            ClientException none = assertThrows(ClientException.class, () -> lb.execute(ClientRequest.get("http://service/who")));
            assertEquals(ClientException.Phase.UNAVAILABLE, none.phase());
        }
    }

    @Test
    void theHealthProbeEjectsWithoutACallAndBringsBackWithoutWaiting() throws Exception {
        AtomicBoolean failing = new AtomicBoolean(true);
        String dead = "http://127.0.0.1:" + closedPort();
        try (Server b = server("b", failing); Server a = server("a", null); HttpClient http = HttpClient.builder().build();
             BalancingClient lb = BalancingClient.builder().clock(clock::get).healthCheck("/health", Duration.ofHours(1))
                     .upstream(dead, http).upstream(origin(b), http).upstream(origin(a), http).build()) {
            lb.probeNow().get(20, TimeUnit.SECONDS);
            assertEquals(Upstream.State.EJECTED, upstream(lb, dead).state());
            assertEquals(Upstream.State.EJECTED, upstream(lb, origin(b)).state());
            assertEquals(Upstream.State.HEALTHY, upstream(lb, origin(a)).state());
            assertEquals(0, upstream(lb, dead).sent(), "probes are not calls");
            for (int i = 0; i < 5; i++) {
                assertEquals("a", lb.execute(ClientRequest.get("http://service/who")).text());
            }
            failing.set(false);
            lb.probeNow().get(20, TimeUnit.SECONDS); // the clock has not moved: only the probe brings b back
            assertEquals(Upstream.State.HEALTHY, upstream(lb, origin(b)).state());
            assertEquals("b", lb.execute(ClientRequest.get("http://service/who")).text());
        }
    }

    @Test
    void everyUpstreamEjectedFailsAtOnceWithPhaseUnavailable() throws Exception {
        String dead1 = "http://127.0.0.1:" + closedPort();
        String dead2 = "http://127.0.0.1:" + closedPort();
        try (HttpClient http = HttpClient.builder().build();
             BalancingClient lb = BalancingClient.builder().clock(clock::get).upstream(dead1, http).upstream(dead2, http).build()) {
            ClientException first = assertThrows(ClientException.class, () -> lb.execute(ClientRequest.get("http://service/x")));
            assertEquals(ClientException.Phase.CONNECT, first.phase(), "both refused: the second attempt's failure");
            ClientException none = assertThrows(ClientException.class, () -> lb.execute(ClientRequest.get("http://service/x")));
            assertEquals(ClientException.Phase.UNAVAILABLE, none.phase());
            assertTrue(none.getMessage().contains("every upstream is ejected"), none.getMessage());
        }
        try (BalancingClient empty = BalancingClient.builder().build()) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> empty.send(ClientRequest.get("http://s/")).get());
            assertEquals(ClientException.Phase.UNAVAILABLE, ((ClientException) e.getCause()).phase());
        }
    }

    @Test
    void settingsAreCheckedAtTheCall() {
        BalancingClient.Builder b = BalancingClient.builder();
        assertThrows(IllegalArgumentException.class, () -> b.upstream("http://h:1/path", r -> null));
        assertThrows(IllegalArgumentException.class, () -> b.upstream("ftp://h:1", r -> null));
        assertThrows(IllegalArgumentException.class, () -> b.upstream("http://h:1", null));
        assertThrows(IllegalArgumentException.class, () -> b.ejectAfter(0));
        assertThrows(IllegalArgumentException.class, () -> b.ejection(Duration.ofSeconds(2), Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> b.healthCheck("health", Duration.ofSeconds(1)));
        b.upstream("http://h", r -> null);
        assertThrows(IllegalArgumentException.class, () -> b.upstream("http://h:80/", r -> null), "the same origin twice");
    }
}
