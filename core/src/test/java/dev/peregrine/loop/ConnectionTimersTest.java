package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The connection's timer phases and limits, in memory with a controlled clock: the test moves
 * {@code ctx.nowMillis} and fires the connection's timeout itself, as the wheel would.
 */
class ConnectionTimersTest {
    private static final String GET = "GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n";
    private static final byte[] BIG = new byte[200_000];
    private static final Router ROUTER = Router.builder()
            .add("GET", "/plaintext", (req, res) -> res.text("Hello, World!"))
            .add("GET", "/big", (req, res) -> res.body(BIG))
            .add("POST", "/echo", (req, res) -> res.body(req.body()))
            .build();

    private static ConnectionHarness connection(Server.Builder settings) {
        return new ConnectionHarness(settings.idleTimeout(Duration.ofSeconds(60)).headerTimeout(Duration.ofSeconds(10))
                .bodyTimeout(Duration.ofSeconds(30)).writeTimeout(Duration.ofSeconds(30)), ROUTER);
    }

    /** Moves the loop's clock to {@code millis} after the current phase began and fires the timeout. */
    private static void expire(ConnectionHarness h, long millisLater) {
        h.ctx.nowMillis += millisLater;
        h.ctx.timers.cancel(h.connection.timer());
        h.connection.timer().onTimeout();
        h.run();
    }

    @Test
    void headThatIsLateGets408AndTheConnectionDrains() {
        ConnectionHarness h = connection(Server.builder());
        h.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n");
        expire(h, 10_001);
        assertTrue(h.written().startsWith("HTTP/1.1 408 Request Timeout\r\n"), h.written());
        assertTrue(h.outputShut(), "FIN sent, draining");
        assertEquals(1, h.ctx.metrics.timeouts[LoopMetrics.TIMEOUT_HEADER]);
        assertEquals(0, h.ctx.pool.lentCount());
    }

    @Test
    void earlyWakeUpReArmsForTheRestInsteadOfFiring() {
        ConnectionHarness h = connection(Server.builder());
        h.send(GET);
        expire(h, 59_000); // progress moved the deadline: not yet
        assertFalse(h.closed());
        assertTrue(h.connection.timer().scheduled(), "re-armed");
        expire(h, 1_001);
        assertTrue(h.closed());
        assertEquals(1, h.ctx.metrics.timeouts[LoopMetrics.TIMEOUT_IDLE]);
        assertEquals(0, h.ctx.timers.armed());
    }

    @Test
    void keepAliveRequestsDoNotTouchTheWheel() {
        ConnectionHarness h = connection(Server.builder());
        Timeout before = h.connection.timer();
        int armed = h.ctx.timers.armed();
        for (int i = 0; i < 100; i++) {
            h.send(GET);
        }
        assertEquals(armed, h.ctx.timers.armed());
        assertTrue(before.scheduled());
        assertEquals(100, h.ctx.metrics.requests);
    }

    @Test
    void bodyThatStopsGets408() {
        ConnectionHarness h = connection(Server.builder());
        h.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc");
        expire(h, 30_001);
        assertTrue(h.written().startsWith("HTTP/1.1 408 "), h.written());
        assertEquals(1, h.ctx.metrics.timeouts[LoopMetrics.TIMEOUT_BODY]);
        assertEquals(0, h.ctx.pool.lentCount());
    }

    @Test
    void stalledReaderIsClosedByTheWriteTimeout() {
        ConnectionHarness h = connection(Server.builder());
        h.io.writeBudget(1000);
        h.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
        assertTrue(h.ctx.pool.lentCount() > 0, "output pending");
        expire(h, 30_001);
        assertTrue(h.closed());
        assertEquals(1, h.ctx.metrics.timeouts[LoopMetrics.TIMEOUT_WRITE]);
        assertEquals(0, h.ctx.pool.lentCount());
    }

    @Test
    void pipelinedBatchStopsAtTheLimitUntilTheSocketTakesTheResponses() {
        ConnectionHarness h = connection(Server.builder().maxPipelinedRequests(2));
        h.io.writeBudget(10);
        h.send(GET.repeat(5));
        assertEquals(2, h.ctx.metrics.requests, "parsing paused after two unanswered responses");
        assertFalse(h.io.readInterest());
        h.peerReads(Integer.MAX_VALUE);
        assertEquals(5, h.ctx.metrics.requests);
        assertEquals(5, h.written().split("HTTP/1.1 200 OK", -1).length - 1);
        assertEquals(0, h.ctx.pool.lentCount());
    }

    @Test
    void closingConnectionStopsReadingUntilItsLastResponseIsOut() {
        ConnectionHarness h = connection(Server.builder());
        h.io.writeBudget(0);
        h.send("GET / HTTP/9.9\r\n\r\n"); // 505, output pending, CLOSING
        h.io.feed("more bytes from the peer".getBytes());
        h.run(); // the harness fails if a read event moves nothing again and again
        assertFalse(h.io.readInterest());
        h.peerReads(Integer.MAX_VALUE);
        assertTrue(h.written().startsWith("HTTP/1.1 505 "));
        assertTrue(h.outputShut());
    }

    @Test
    void shutdownLetsTheRequestUnderWayFinishWithConnectionClose() {
        ConnectionHarness h = connection(Server.builder());
        h.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello");
        h.connection.shutdown();
        assertFalse(h.closed());
        h.send("world");
        assertTrue(h.written().contains("Connection: close\r\n"), h.written());
        assertTrue(h.written().endsWith("helloworld"));
        assertTrue(h.outputShut());
    }

    @Test
    void idleConnectionClosesAtOnceOnShutdown() {
        ConnectionHarness h = connection(Server.builder());
        h.send(GET);
        h.connection.shutdown();
        assertTrue(h.closed());
        assertEquals(0, h.ctx.timers.armed());
    }

    /**
     * A head left incomplete behind an answered request gets the whole header timeout from the moment
     * that request was answered, not from when the first incomplete head arrived (the protocol restarts
     * its HEAD phase: ConnectionTimer.restartPhase moves the phase's start, and the wheel's node, armed
     * for the old deadline, finds it moved and re-arms). In turns, so that the test sets the clock: the
     * first event of a turn reads it, the rest of the turn keeps what the test wrote.
     */
    @Test
    void headClockRestartsWhenTheRequestBeforeItIsAnswered() {
        ConnectionHarness h = connection(Server.builder());
        h.ctx.newTurn();
        h.ctx.turnClock();
        h.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n"); // HEAD from now
        h.ctx.nowMillis += 9_000;
        h.send("\r\n" + "GET /plaintext HTTP/1.1\r\nHo"); // answered; the next head restarts the clock
        assertEquals(1, h.ctx.metrics.requests);
        assertEquals(h.ctx.nowMillis, h.connection.timerSinceMillis());
        expire(h, 1_001); // 10,001 ms after the first head began, 1,001 after the restart: re-armed
        assertEquals(1, h.ctx.metrics.requests);
        assertFalse(h.closed());
        assertTrue(h.connection.timer().scheduled(), "re-armed for the rest");
        assertEquals(0, h.ctx.metrics.timeouts[LoopMetrics.TIMEOUT_HEADER]);
        h.ctx.nowMillis += 8_998;
        h.ctx.timers.cancel(h.connection.timer());
        h.connection.timer().onTimeout(); // 9,999 ms after the restart: still not due
        assertFalse(h.closed());
        expire(h, 2); // 10,001 ms after the restart
        assertTrue(h.written().contains("HTTP/1.1 408 "), h.written());
        assertEquals(1, h.ctx.metrics.timeouts[LoopMetrics.TIMEOUT_HEADER]);
    }

    /**
     * The loop clock is read once per turn: every event of a turn, on any connection, dates its timer
     * phase from the turn's reading, and the next turn reads it again. A context no transport turns reads
     * it for every event.
     */
    @Test
    void theClockIsReadOncePerTurn() {
        ConnectionHarness h = connection(Server.builder());
        LoopContext ctx = h.ctx;
        ConnectionHarness other = new ConnectionHarness(ctx);
        ctx.nowMillis = 1;
        h.send(GET);
        assertTrue(h.connection.timerSinceMillis() > 1, "no turns: the event read the clock");
        ctx.newTurn();
        ctx.turnClock();
        long turnStart = ctx.nowMillis - 5_000; // what the turn's read would be had it begun 5 s ago
        ctx.nowMillis = turnStart;
        h.send(GET);
        other.send(GET);
        h.send(GET);
        assertEquals(turnStart, h.connection.timerSinceMillis(), "the turn's reading, not a new one");
        assertEquals(turnStart, other.connection.timerSinceMillis());
        assertEquals(4, ctx.metrics.requests);
        ctx.newTurn();
        h.send(GET);
        assertTrue(h.connection.timerSinceMillis() >= turnStart + 5_000, "a new turn reads the clock again");
    }

    @Test
    void lastAllowedRequestSaysClose() {
        ConnectionHarness h = connection(Server.builder().maxRequestsPerConnection(2));
        h.send(GET + GET + GET);
        assertEquals(2, h.ctx.metrics.requests);
        assertTrue(h.written().contains("Connection: close\r\n"));
        assertEquals(1, h.written().split("Connection: close", -1).length - 1);
    }
}
