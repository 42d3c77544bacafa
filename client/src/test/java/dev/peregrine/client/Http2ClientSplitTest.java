package dev.peregrine.client;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopConfig;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.loop.MemoryEndpoint;
import dev.peregrine.loop.Protocol;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

import static dev.peregrine.client.H2Frames.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The whole client path (a {@link HostPool}'s HTTP/2 session, {@link Http2ClientConnection}, the
 * production {@code Connection}) on the test thread over {@code loop/MemoryEndpoint}: the server's
 * frames delivered in two pieces split at every byte, and with the response's field block split
 * across HEADERS and CONTINUATION at every byte, must give the same response and the same frames
 * from the client (SETTINGS ACK, PING ACK).
 */
class Http2ClientSplitTest {
    private static final HttpClient CLIENT = HttpClient.builder().http2(Http2Mode.PRIOR_KNOWLEDGE).build();
    private static final byte[] BLOCK = concat(STATUS_200, literal("content-type", "text/plain"), literal("x-trace", "abc123"));

    @AfterAll
    static void close() {
        CLIENT.close();
    }

    /** A loop on the test thread: tasks wait until {@link #runTasks}; a connect makes a connection over {@link #io}. */
    static final class TestLoop implements EventLoop {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        final MemoryEndpoint io = new MemoryEndpoint();
        LoopContext ctx;
        Connection connection;

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        @Override
        public boolean inEventLoop() {
            return true;
        }

        @Override
        public void connect(InetSocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                            ConnectCallback callback) {
            connection = ctx.newConnection(io, layer, protocol);
            callback.connected(connection);
        }

        void runTasks() {
            Runnable r;
            while ((r = tasks.poll()) != null) {
                r.run();
            }
        }

        /** Delivers {@code piece} as one read. */
        void deliver(byte[] piece) {
            io.feed(piece);
            for (int i = 0; i < 1000 && io.hasInput() && io.readInterest() && !io.closed(); i++) {
                connection.onReadable();
            }
            runTasks();
        }
    }

    /** The server's side: SETTINGS, then the response with padding, a PING and a WINDOW_UPDATE in between. */
    static byte[] serverWire(int continuationAt) {
        byte[] head = continuationAt <= 0
                ? frame(HEADERS, END_HEADERS, 1, BLOCK)
                : concat(frame(HEADERS, 0, 1, Arrays.copyOfRange(BLOCK, 0, continuationAt)),
                        frame(CONTINUATION, END_HEADERS, 1, Arrays.copyOfRange(BLOCK, continuationAt, BLOCK.length)));
        return concat(
                frame(SETTINGS, 0, 0, concat(new byte[] {0, 3}, int32(10))), // MAX_CONCURRENT_STREAMS 10
                frame(SETTINGS, ACK, 0, new byte[0]),
                head,
                frame(DATA, PADDED, 1, concat(new byte[] {2}, ascii("Hello, "), new byte[2])),
                frame(PING, 0, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}),
                frame(WINDOW_UPDATE, 0, 0, int32(1000)),
                frame(DATA, END_STREAM, 1, ascii("World!")));
    }

    /** One exchange: the call sent, {@code wire} delivered split at {@code split}; the response and the client's frames. */
    private static String exchange(byte[] wire, int split) throws Exception {
        TestLoop loop = new TestLoop();
        LoopContext ctx = new LoopContext(LoopSetup.outbound(LoopConfig.builder().threads(1).build()));
        ctx.bind(loop);
        loop.ctx = ctx;
        ClientRequest request = ClientRequest.get("http://127.0.0.1:8080/split");
        HostPool pool = new HostPool(CLIENT, request, ctx);
        CompletableFuture<ClientResponse> future = new CompletableFuture<>();
        pool.submit(pool.calls().acquire(request, System.currentTimeMillis(), future, null, null));
        loop.runTasks();
        assertTrue(loop.connection != null, "the session dialed");
        int sentBefore = loop.io.written().size();
        if (split > 0) {
            loop.deliver(Arrays.copyOfRange(wire, 0, split));
        }
        loop.deliver(Arrays.copyOfRange(wire, split, wire.length));
        assertTrue(future.isDone(), "answered after the split at " + split);
        ClientResponse r = future.get();
        byte[] out = loop.io.written().toByteArray();
        String frames = clientFrames(Arrays.copyOfRange(out, sentBefore, out.length));
        loop.connection.close();
        return r.status() + " " + r.headerNames() + r.headerValues() + " " + r.text() + " | " + frames;
    }

    /** The client's frames after its request, as type/flags/stream. */
    private static String clientFrames(byte[] wire) {
        StringBuilder b = new StringBuilder();
        int pos = 0;
        while (pos + 9 <= wire.length) {
            int length = (wire[pos] & 0xff) << 16 | (wire[pos + 1] & 0xff) << 8 | (wire[pos + 2] & 0xff);
            b.append(wire[pos + 3]).append('/').append(wire[pos + 4]).append('/').append(wire[pos + 8]).append(' ');
            pos += 9 + length;
        }
        return b.toString();
    }

    @Test
    void theExchangeGivesTheResponseAndTheAcks() throws Exception {
        String whole = exchange(serverWire(0), 0);
        assertTrue(whole.startsWith("200 [content-type, x-trace][text/plain, abc123] Hello, World! | "), whole);
        assertTrue(whole.contains(SETTINGS + "/" + ACK + "/0"), "SETTINGS acknowledged: " + whole);
        assertTrue(whole.contains(PING + "/" + ACK + "/0"), "PING answered: " + whole);
    }

    @Test
    void everySplitPointGivesTheSameExchange() throws Exception {
        byte[] wire = serverWire(0);
        String whole = exchange(wire, 0);
        for (int k = 1; k < wire.length; k++) {
            assertEquals(whole, exchange(wire, k), "split at " + k);
        }
    }

    @Test
    void aFieldBlockSplitAcrossContinuationAtEveryByte() throws Exception {
        String whole = exchange(serverWire(0), 0);
        for (int k = 1; k < BLOCK.length; k++) {
            assertEquals(whole, exchange(serverWire(k), 0), "CONTINUATION at " + k);
            assertEquals(whole, exchange(serverWire(k), 9 + k + 4), "CONTINUATION at " + k + ", split inside it");
        }
    }
}
