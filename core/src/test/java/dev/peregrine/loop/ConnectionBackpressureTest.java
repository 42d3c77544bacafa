package dev.peregrine.loop;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.route.Router;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
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
    private static final class ScriptedSocket implements SocketEndpoint {
        final ByteBuffer input;
        final ByteArrayOutputStream written = new ByteArrayOutputStream();
        int refusals;
        boolean reading = true;
        boolean writing;

        ScriptedSocket(String input, int refusals) {
            this.input = ByteBuffer.wrap(input.getBytes(StandardCharsets.US_ASCII));
            this.refusals = refusals;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (!input.hasRemaining()) {
                return 0;
            }
            int n = Math.min(dst.remaining(), input.remaining());
            dst.put(dst.position(), input, input.position(), n);
            dst.position(dst.position() + n);
            input.position(input.position() + n);
            return n;
        }

        @Override
        public int write(ByteBuffer src) {
            if (refusals > 0) {
                refusals--;
                return 0;
            }
            int n = src.remaining();
            byte[] b = new byte[n];
            src.get(b);
            written.write(b, 0, n);
            return n;
        }

        @Override
        public void readInterest(boolean on) {
            reading = on;
        }

        @Override
        public void writeInterest(boolean on) {
            writing = on;
        }

        @Override
        public void shutdownOutput() {
        }

        @Override
        public void close() {
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return new InetSocketAddress("127.0.0.1", 1);
        }

        int responses() {
            String all = written.toString(StandardCharsets.ISO_8859_1);
            int count = 0;
            for (int i = all.indexOf("HTTP/1.1 200"); i >= 0; i = all.indexOf("HTTP/1.1 200", i + 1)) {
                count++;
            }
            return count;
        }
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
        ScriptedSocket socket = new ScriptedSocket("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n", 2);
        Connection c = ctx.newConnection(socket);
        c.onReadable();
        assertEquals(2, socket.responses(), "the buffered request behind the large one is answered");
        assertTrue(socket.reading, "reading resumed");
        assertFalse(socket.writing, "nothing pending");
        assertEquals(0, ctx.pool().lentCount());
        c.close();
    }

    /** Wherever in the batch the socket starts taking bytes again, the request held behind /big is answered. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 8})
    void heldRequestsAreAnsweredWhereverTheOutputDrains(int refusals) {
        LoopContext ctx = context();
        ScriptedSocket socket = new ScriptedSocket("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n", refusals);
        Connection c = ctx.newConnection(socket);
        c.onReadable();
        for (int events = 0; socket.writing && events < 100; events++) {
            c.onWritable(); // as a loop would, while write interest is on
        }
        assertEquals(2, socket.responses(), "after " + refusals + " refused writes");
        assertTrue(socket.reading);
        assertFalse(socket.writing);
        assertEquals(0, ctx.pool().lentCount());
        c.close();
    }

    @Test
    void writabilityResumesReadingAndAnswersBufferedRequests() {
        LoopContext ctx = context();
        ScriptedSocket socket = new ScriptedSocket("GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /small HTTP/1.1\r\nHost: t\r\n\r\n", 1_000);
        Connection c = ctx.newConnection(socket);
        c.onReadable();
        assertFalse(socket.reading, "paused while the large response waits");
        assertTrue(socket.writing);
        assertEquals(0, socket.responses());
        socket.refusals = 0;
        c.onWritable();
        assertEquals(2, socket.responses());
        assertTrue(socket.reading);
        assertFalse(socket.writing);
        assertEquals(0, ctx.pool().lentCount());
        c.close();
    }
}
