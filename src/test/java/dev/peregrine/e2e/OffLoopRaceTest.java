package dev.peregrine.e2e;

import dev.peregrine.Completion;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Completions from other threads racing what the loop does to the same exchange: the async timeout,
 * the client closing (FIN or RST) before, during or after the answer, and an idle loop that must be
 * woken by a completion (a lost wake-up leaves the request waiting for the loop's next timer, so the
 * sequential run below would not finish before its guard).
 *
 * <p>What must hold whatever the interleaving: every answer the client reads is a whole 200 or 503,
 * no completion throws, no handler error is counted, every pooled buffer comes back, and the server
 * still answers afterwards. Timeouts here are guards against hangs, never timing assertions.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class OffLoopRaceTest {
    private static final int CLIENTS = 6;
    private static final int ROUNDS = 150;

    private final ServerFactory factory;
    private final ExecutorService completers = Executors.newFixedThreadPool(3);
    private final AtomicLong completedTrue = new AtomicLong();
    private final AtomicLong completedFalse = new AtomicLong();
    private final AtomicLong completerErrors = new AtomicLong();
    private final AtomicLong started = new AtomicLong();
    private Server server;

    OffLoopRaceTest(ServerFactory factory) {
        this.factory = factory;
    }

    @BeforeEach
    void start() {
        server = factory.start(b -> b
                .asyncTimeout(Duration.ofMillis(2))
                .idleTimeout(Duration.ofMinutes(10))
                .get("/race", (req, res) -> {
                    started.incrementAndGet();
                    Completion done = res.async();
                    int spin = (int) (req.query().get("spin") == null ? 0 : Long.parseLong(req.query().get("spin")));
                    completers.execute(() -> finish(done, spin));
                }));
    }

    private void finish(Completion done, int spin) {
        try {
            for (int i = 0; i < spin; i++) {
                Thread.onSpinWait();
            }
            done.response().text("ok");
            if (done.complete()) {
                completedTrue.incrementAndGet();
            } else {
                completedFalse.incrementAndGet();
            }
        } catch (RuntimeException e) {
            // A completion may find its exchange over (timed out, connection closed): complete()
            // reports that with false; nothing a completer calls may throw for it.
            completerErrors.incrementAndGet();
            e.printStackTrace();
        }
    }

    @AfterEach
    void stop() throws InterruptedException {
        try {
            completers.shutdown();
            assertTrue(completers.awaitTermination(60, TimeUnit.SECONDS), "completers stuck");
            ServerTestBase.awaitNoLentBuffers(server);
        } finally {
            server.close();
        }
    }

    @Test
    @Timeout(300)
    void completionsRacingTimeoutsAndClosesLeaveNothingBehind() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<int[]>> results = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            long seed = 1000 + c;
            results.add(clients.submit(() -> clientRounds(seed)));
        }
        int ok = 0;
        int unavailable = 0;
        for (Future<int[]> f : results) {
            int[] r = f.get();
            ok += r[0];
            unavailable += r[1];
        }
        clients.shutdown();
        Await.until(() -> completedTrue.get() + completedFalse.get() + completerErrors.get() == started.get(),
                () -> "completions " + completedTrue + "+" + completedFalse + "+" + completerErrors + " of " + started);
        assertEquals(0, completerErrors.get(), "a completion threw");
        assertEquals(0, server.metrics().handlerErrors, server.metrics().toString());
        // Which side wins each race depends on the machine; what is read must match what was sent.
        assertTrue(ok <= completedTrue.get(), "ok=" + ok + " completedTrue=" + completedTrue);
        assertTrue(ok + unavailable > 0, "no answer was read at all");
        try (Socket s = RawClient.connect(server.port())) {
            s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.1\r\nHost: a\r\n\r\n"));
            assertEquals(200, RawResponse.read(s.getInputStream()).status);
        }
    }

    /** One client's rounds: each a new connection that reads the answer, or abandons it at some point. */
    private int[] clientRounds(long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        int ok = 0;
        int unavailable = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int spin = random.nextInt(4) == 0 ? 0 : random.nextInt(200_000);
            byte[] request = RawClient.bytes("GET /race?spin=" + spin + " HTTP/1.1\r\nHost: a\r\n\r\n"
                    + (random.nextBoolean() ? "GET /race HTTP/1.1\r\nHost: a\r\n\r\n" : ""));
            try (Socket s = RawClient.connect(server.port())) {
                s.getOutputStream().write(request);
                switch (random.nextInt(4)) {
                    case 0 -> s.setSoLinger(true, 0); // RST on close, at once
                    case 1 -> { } // FIN at once
                    case 2 -> s.shutdownOutput(); // then read what comes
                    default -> { }
                }
                if (random.nextInt(3) > 0) {
                    InputStream in = s.getInputStream();
                    RawResponse r = RawResponse.read(in);
                    assertTrue(r.status == 200 || r.status == 503, "status " + r.status);
                    if (r.status == 200) {
                        assertEquals("ok", r.text());
                        ok++;
                    } else {
                        unavailable++;
                    }
                }
            } catch (SocketException e) {
                // the server closed first (after a 503 with Connection: close, or our own RST): fine
            }
        }
        return new int[] {ok, unavailable};
    }

    @Test
    @Timeout(120)
    void completionsFromAnotherThreadWakeAnIdleLoop() throws Exception {
        // No near timer on this server (async timeout and idle timeout in minutes): only the
        // completion's own wake-up gets the loop to write each answer.
        Server quiet = factory.start(b -> b
                .asyncTimeout(Duration.ofMinutes(10))
                .idleTimeout(Duration.ofMinutes(10))
                .get("/later", (req, res) -> {
                    Completion done = res.async();
                    completers.execute(() -> finish(done, 0));
                }));
        try (Socket s = RawClient.connect(quiet.port())) {
            InputStream in = s.getInputStream();
            for (int i = 0; i < 2000; i++) {
                s.getOutputStream().write(RawClient.bytes("GET /later HTTP/1.1\r\nHost: a\r\n\r\n"));
                RawResponse r = RawResponse.read(in);
                assertEquals(200, r.status);
                assertEquals("ok", r.text());
            }
        } finally {
            ServerTestBase.awaitNoLentBuffers(quiet);
            quiet.close();
        }
        // Counted after complete() returned, which may be after the client read the answer.
        Await.until(() -> completedTrue.get() == 2000, () -> "completions: " + completedTrue);
    }
}
