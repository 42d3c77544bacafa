package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Backpressure in {@link Connection} against a scripted socket, so that the order of partial
 * writes is exact: reading pauses while more than {@code maxPendingOutput} bytes wait, and resumes —
 * answering the requests already buffered — however the pending bytes drain, including inside the
 * writing of one large response, where no writability event follows.
 */
class ConnectionBackpressureTest {
    private static final byte[] BIG = new byte[200 * 1024];

    /** A socket whose writes take nothing for the first {@code refusals} calls, then everything. */
    /** A socket in memory holding {@code input} for its first read, refusing the first {@code refusals} writes. */
    private static MemoryEndpoint socket(String input, int refusals) {
        MemoryEndpoint s = new MemoryEndpoint();
        s.feed(input.getBytes(StandardCharsets.US_ASCII));
        s.refuseWrites(refusals);
        return s;
    }

    /** How many 200 responses {@code s} has been written. */
    private static int responses(MemoryEndpoint s) {
        String all = s.writtenText();
        int count = 0;
        for (int i = all.indexOf("HTTP/1.1 200"); i >= 0; i = all.indexOf("HTTP/1.1 200", i + 1)) {
            count++;
        }
        return count;
    }

    private static LoopContext context() {
        ServerConfig config;
        // ServerConfig is built by the builder only: take it from a server bound to a free port.
        try (Server s = Server.builder().host("127.0.0.1").port(0).threads(1).transport("nio")
                .maxPendingOutput(4096).start()) {
            config = s.config();
        }
        Router router = Router.builder()
                .add("GET", "/big", (req, res) -> res.body(BIG))
                .add("GET", "/small", (req, res) -> res.body("ok"))
                .build();
        return dev.peregrine.TestConfigs.serverLoop(config, router);
    }

    @Test
    void outputDrainingInsideALargeResponseResumesReading() {
        LoopContext ctx = context();
        // Refusing the first writes pauses reading during /big; the rest of /big then drains at once.
        MemoryEndpoint socket = socket("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n", 2);
        Connection c = ctx.newConnection(socket);
        c.onReadable();
        assertEquals(2, responses(socket), "the buffered request behind the large one is answered");
        assertTrue(socket.readInterest(), "reading resumed");
        assertFalse(socket.writeInterest(), "nothing pending");
        assertEquals(0, ctx.pool().lentCount());
        c.close();
    }

    /** Wherever in the batch the socket starts taking bytes again, the request held behind /big is answered. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 8})
    void heldRequestsAreAnsweredWhereverTheOutputDrains(int refusals) {
        LoopContext ctx = context();
        MemoryEndpoint socket = socket("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n", refusals);
        Connection c = ctx.newConnection(socket);
        c.onReadable();
        for (int events = 0; socket.writeInterest() && events < 100; events++) {
            c.onWritable(); // as a loop would, while write interest is on
        }
        assertEquals(2, responses(socket), "after " + refusals + " refused writes");
        assertTrue(socket.readInterest());
        assertFalse(socket.writeInterest());
        assertEquals(0, ctx.pool().lentCount());
        c.close();
    }

    @Test
    void writabilityResumesReadingAndAnswersBufferedRequests() {
        LoopContext ctx = context();
        MemoryEndpoint socket = socket("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n", 1_000);
        Connection c = ctx.newConnection(socket);
        c.onReadable();
        assertFalse(socket.readInterest(), "paused while the large response waits");
        assertTrue(socket.writeInterest());
        assertEquals(0, responses(socket));
        socket.refuseWrites(0);
        c.onWritable();
        assertEquals(2, responses(socket));
        assertTrue(socket.readInterest());
        assertFalse(socket.writeInterest());
        assertEquals(0, ctx.pool().lentCount());
        c.close();
    }
}
