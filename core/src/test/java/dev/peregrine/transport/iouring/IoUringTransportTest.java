package dev.peregrine.transport.iouring;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What is particular to the io_uring transport, over real sockets (the scenarios every transport shares
 * run on it through the suite's transport matrix): a multishot accept held to {@code maxConnections}
 * under a burst, a FIN that waits for the send in flight, a close while a send is in flight, and idle
 * connections that hold no buffer.
 */
class IoUringTransportTest {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    /** Larger than loopback's socket buffers: the last sends are in flight when the response is done. */
    private static final byte[] BIG = new byte[8 << 20];

    static {
        new Random(11).nextBytes(BIG);
    }

    private Server server;

    @BeforeEach
    void needsIoUring() {
        assumeTrue(IoUringAvailability.isAvailable(), () -> "io_uring unavailable: " + IoUringAvailability.unavailabilityReason());
    }

    private Server start(Server.Builder b) {
        server = b.host("127.0.0.1").port(0).threads(1).transport(Transport.IO_URING)
                .get("/plaintext", (req, res) -> res.contentType("text/plain").body(HELLO))
                .get("/big", (req, res) -> res.contentType("application/octet-stream").body(BIG))
                .start();
        assertEquals(Transport.IO_URING, server.transport());
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
    }

    /**
     * Eight connections arrive at once against a limit of two: the multishot accept takes them all, the
     * loop parks six and serves them, oldest first, as slots free; none is lost or served twice.
     */
    @Test
    void aBurstBeyondMaxConnectionsIsParkedAndServedAsSlotsFree() throws Exception {
        start(Server.builder().maxConnections(2));
        List<RawClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                RawClient c = new RawClient(server.port());
                c.send(get("/plaintext"));
                clients.add(c);
            }
            for (RawClient c : clients) {
                assertArrayEquals(HELLO, c.read().body); // waits for a slot: the one before it closes next
                c.close();
            }
            assertTrue(server.metrics().acceptPauses > 0, server.metrics().toString());
            Await.until(() -> server.metrics().open == 0, () -> "still open: " + server.metrics());
            assertEquals(8, server.metrics().accepted, server.metrics().toString());
        } finally {
            for (RawClient c : clients) {
                c.close();
            }
        }
    }

    /** {@code Connection: close} after a body larger than the socket holds: every byte, then the FIN. */
    @Test
    void theFinFollowsTheLastByteOfAResponseStillInFlight() throws Exception {
        start(Server.builder());
        try (Socket s = RawClient.connect(server.port())) {
            s.getOutputStream().write(RawClient.bytes("GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
            InputStream in = s.getInputStream();
            RawResponse r = RawResponse.read(in, false);
            assertEquals(200, r.status);
            assertArrayEquals(BIG, r.body);
            assertEquals(-1, in.read(), "the server closes after the response");
        }
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
    }

    /**
     * Clients that reset the connection while the server's sends are in flight (they stop reading a
     * large body): the server closes them, the send buffers go back to the pool, and the others go on.
     */
    @Test
    void aResetWhileSendsAreInFlightFreesTheSendBuffer() throws Exception {
        start(Server.builder());
        for (int i = 0; i < 4; i++) {
            try (Socket s = new Socket()) {
                s.setReceiveBufferSize(16 << 10);
                s.connect(new java.net.InetSocketAddress("127.0.0.1", server.port()), RawClient.READ_TIMEOUT_MS);
                s.setSoTimeout(RawClient.READ_TIMEOUT_MS);
                s.setSoLinger(true, 0); // close with RST
                s.getOutputStream().write(RawClient.bytes(get("/big")));
                byte[] some = new byte[64 << 10];
                int got = 0;
                while (got < some.length) {
                    int n = s.getInputStream().read(some, got, some.length - got);
                    assertTrue(n > 0);
                    got += n;
                }
            }
        }
        Await.until(() -> server.metrics().open == 0, () -> "still open: " + server.metrics());
        Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
        try (RawClient c = new RawClient(server.port())) {
            c.send(get("/plaintext"));
            assertArrayEquals(HELLO, c.read().body);
        }
    }

    /** Keep-alive connections between requests own no buffer: only their armed poll, in the kernel. */
    @Test
    void idleConnectionsHoldNoBuffer() throws Exception {
        start(Server.builder());
        List<RawClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 50; i++) {
                RawClient c = new RawClient(server.port());
                clients.add(c);
                c.send(get("/plaintext") + get("/plaintext"));
                assertArrayEquals(HELLO, c.read().body);
                assertArrayEquals(HELLO, c.read().body);
            }
            Await.until(() -> server.metrics().lentBuffers == 0, () -> "idle connections hold buffers: " + server.metrics());
            assertEquals(50, server.metrics().open);
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (RawClient c : clients) { // and each still answers
                c.send(get("/plaintext"));
                all.write(c.read().body);
            }
            assertEquals(50 * HELLO.length, all.size());
        } finally {
            for (RawClient c : clients) {
                c.close();
            }
        }
    }
}
