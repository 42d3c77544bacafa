package dev.peregrine.transport.iouring;

import dev.peregrine.Handler;
import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import io.netty.channel.uring.IoUring;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Receive on io_uring over real sockets: one multishot receive per connection into the loop's
 * provided-buffer ring ({@link RecvRing}), with the ring at its default size, at two buffers (so that it
 * runs dry and connections fall back to a poll and recv until it is refilled), and turned off (0: poll
 * and recv only). Every split point of a request, bursts larger than the ring, a large upload, a paused
 * connection that must stop taking buffers, the end of stream, and no buffer lost on the way.
 */
class IoUringReceiveTest {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BIG = new byte[8 << 20];

    static {
        new Random(27).nextBytes(BIG);
    }

    private static final Handler ECHO = (req, res) -> res.contentType("application/octet-stream").body(req.body());

    private Server server;

    @BeforeEach
    void needsIoUring() {
        assumeTrue(IoUringAvailability.isAvailable(), () -> "io_uring unavailable: " + IoUringAvailability.unavailabilityReason());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private Server start(int recvBuffers) {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(Transport.IO_URING)
                .ioUringRecvBuffers(recvBuffers)
                .get("/plaintext", (req, res) -> res.contentType("text/plain").body(HELLO))
                .get("/big", (req, res) -> res.contentType("application/octet-stream").body(BIG))
                .post("/echo", ECHO)
                .start();
        assertEquals(Transport.IO_URING, server.transport());
        return server;
    }

    private static boolean kernelHasRing() {
        return IoUring.isRegisterBufferRingSupported() && IoUring.isRecvMultishotEnabled();
    }

    private static byte[] post(byte[] body) {
        byte[] head = RawClient.bytes("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n");
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    private static byte[] body(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** Where the kernel has it, the ring is reached on the Netty this build pins: a loop finds and checks it. */
    @Test
    void theRingIsReachableOnThisNetty() throws Exception {
        assumeTrue(kernelHasRing(), "kernel without provided-buffer rings or multishot receive");
        RecvRing ring = RecvRing.create(8);
        assertNotNull(ring, "RecvRing.create: see the INFO line");
        dev.peregrine.transport.NettyLoop loop = NettyIoUring.loop("recv-ring-test", ring);
        try {
            CompletableFuture<Boolean> attached = new CompletableFuture<>();
            loop.execute(() -> attached.complete(ring.attach()));
            assertTrue(attached.get(30, TimeUnit.SECONDS), "attach: see the INFO line");
            assertEquals(8, ring.size());
            assertEquals(8, ring.available());
        } finally {
            loop.shutdown(1_000);
        }
    }

    /**
     * A request in two writes, split at every byte, on one keep-alive connection: the second part arrives
     * on the receive left armed by the first, and the connection holds the first part meanwhile.
     */
    @ParameterizedTest(name = "ring of {0}")
    @ValueSource(ints = {256, 2, 0})
    void everySplitOfARequestArrivesWhole(int recvBuffers) throws Exception {
        start(recvBuffers);
        byte[] body = body(300, 1);
        byte[] request = post(body);
        try (Socket s = RawClient.connect(server.port())) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            for (int split = 1; split < request.length; split++) {
                out.write(request, 0, split);
                out.flush();
                out.write(request, split, request.length - split);
                out.flush();
                RawResponse r = RawResponse.read(in, false);
                assertEquals(200, r.status, "split at " + split);
                assertArrayEquals(body, r.body, "split at " + split);
            }
        }
        assertNoBufferLost(recvBuffers);
    }

    /**
     * Eight connections each send 64 pipelined requests at once, far more than a ring of two buffers
     * holds: where it runs dry, the connections read with recv until it is refilled, and every response
     * comes whole and in order.
     */
    @ParameterizedTest(name = "ring of {0}")
    @ValueSource(ints = {256, 2})
    void aBurstLargerThanTheRingIsServedWhole(int recvBuffers) throws Exception {
        start(recvBuffers);
        long dryBefore = RecvRing.starvations();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int c = 0; c < 8; c++) {
                int seed = c;
                clients.add(pool.submit(() -> {
                    try (Socket s = RawClient.connect(server.port())) {
                        ByteArrayOutputStream burst = new ByteArrayOutputStream();
                        List<byte[]> bodies = new ArrayList<>();
                        for (int i = 0; i < 64; i++) {
                            byte[] b = body(1000 + i * 37, seed * 100 + i);
                            bodies.add(b);
                            burst.write(post(b));
                        }
                        s.getOutputStream().write(burst.toByteArray());
                        for (byte[] b : bodies) {
                            RawResponse r = RawResponse.read(s.getInputStream(), false);
                            assertEquals(200, r.status);
                            assertArrayEquals(b, r.body);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        if (recvBuffers == 2 && kernelHasRing()) {
            assertTrue(RecvRing.starvations() > dryBefore, "a ring of two buffers never ran dry under the burst");
        }
        assertNoBufferLost(recvBuffers);
    }

    /** A body far larger than the ring (4 MiB through 16 KiB buffers), on each ring size. */
    @ParameterizedTest(name = "ring of {0}")
    @ValueSource(ints = {256, 2, 0})
    void aLargeUploadArrivesWhole(int recvBuffers) throws Exception {
        start(recvBuffers);
        byte[] body = body(4 << 20, 3);
        try (Socket s = RawClient.connect(server.port())) {
            CompletableFuture<RawResponse> response = CompletableFuture.supplyAsync(() -> {
                try {
                    return RawResponse.read(s.getInputStream(), false);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            s.getOutputStream().write(post(body));
            RawResponse r = response.get(60, TimeUnit.SECONDS);
            assertEquals(200, r.status);
            assertArrayEquals(body, r.body);
        }
        assertNoBufferLost(recvBuffers);
    }

    /**
     * Backpressure: a client asks for 8 MiB and does not read, then sends on. The server pauses reading
     * that connection and cancels its receive, so what it sends meanwhile stays in the socket and holds no
     * ring buffer: a bystander on a ring of two buffers is served without the ring running dry. When the
     * client reads, everything is answered in order.
     */
    @Test
    void aPausedConnectionHoldsNoRingBuffer() throws Exception {
        start(2);
        try (RawClient slow = new RawClient(server.port(), 16 << 10)) {
            slow.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
            Await.until(() -> server.metrics().readPauses > 0, () -> "never paused: " + server.metrics());
            StringBuilder more = new StringBuilder();
            for (int i = 0; i < 2000; i++) {
                more.append("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"); // 74 KiB in all
            }
            slow.send(more.toString());
            long dryBefore = RecvRing.starvations();
            try (RawClient bystander = new RawClient(server.port())) {
                for (int i = 0; i < 20; i++) {
                    bystander.send(post(body(20_000, i))); // two ring buffers at once, when they arrive together
                    RawResponse r = bystander.read();
                    assertEquals(200, r.status);
                    assertEquals(20_000, r.body.length);
                }
            }
            assertEquals(dryBefore, RecvRing.starvations(), "the paused connection took the ring's buffers");
            RawResponse big = slow.read();
            assertArrayEquals(BIG, big.body);
            for (int i = 0; i < 2000; i++) {
                assertArrayEquals(HELLO, slow.read().body, "response " + i);
            }
        }
        assertNoBufferLost(2);
    }

    /** The client's FIN after its request: the answer still comes, then the server closes. */
    @ParameterizedTest(name = "ring of {0}")
    @ValueSource(ints = {256, 0})
    void theEndOfStreamFollowsTheLastRequest(int recvBuffers) throws Exception {
        start(recvBuffers);
        try (Socket s = RawClient.connect(server.port())) {
            s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n"));
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            assertArrayEquals(HELLO, RawResponse.read(in, false).body);
            assertArrayEquals(HELLO, RawResponse.read(in, false).body);
            assertEquals(-1, in.read(), "the server closes after the peer's end of stream");
        }
        Await.until(() -> server.metrics().open == 0, () -> "still open: " + server.metrics());
    }

    /**
     * No ring buffer was lost (every one named by a completion went back): on a ring of two, requests of
     * two buffers' worth, one at a time, never find it dry. And nothing is left lent by the pool.
     */
    private void assertNoBufferLost(int recvBuffers) throws Exception {
        Await.until(() -> server.metrics().open == 0, () -> "still open: " + server.metrics());
        if (recvBuffers == 2) {
            long dryBefore = RecvRing.starvations();
            try (RawClient c = new RawClient(server.port())) {
                for (int i = 0; i < 20; i++) {
                    byte[] b = body(20_000, 50 + i);
                    c.send(post(b));
                    assertArrayEquals(b, c.read().body);
                }
            }
            assertEquals(dryBefore, RecvRing.starvations(), "a buffer of the ring was lost");
        }
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
    }
}
