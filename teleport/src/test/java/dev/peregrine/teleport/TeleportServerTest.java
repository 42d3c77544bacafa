package dev.peregrine.teleport;

import dev.peregrine.Handlers;
import dev.peregrine.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code Server.builder().teleport(port)} over raw sockets, on every transport of the kit's list. */
class TeleportServerTest {
    private Server server;

    private Server start(String transport) {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0)
                .get("/hello", (req, res) -> res.text("hello"))
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i")))
                .post("/echo", (req, res) -> res.body(req.bodyBytes()))
                .post("/trailers", (req, res) -> res.text(req.bodyString() + " " + req.trailers()))
                .get("/blocking", Handlers.blocking((req, res) -> res.text("blocked")))
                .get("/async", (req, res) -> {
                    dev.peregrine.Completion done = res.async();
                    String i = req.query().get("i"); // the loop's view: read on the loop
                    new Thread(() -> {
                        done.response().text("later " + i);
                        done.complete();
                    }).start();
                })
                .get("/never", (req, res) -> res.async())
                .get("/throws", (req, res) -> {
                    throw new IllegalStateException("boom (expected by the test)");
                })
                .start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void theSameRoutesAnswerOverTeleportMatchedById(String transport) throws Exception {
        start(transport);
        assertTrue(server.teleportPort() > 0 && server.teleportPort() != server.port());
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(7, TestPeer.get("/hello")));
            TestPeer.Got g = p.read();
            assertEquals(Frame.RESPONSE, g.type());
            assertEquals(7, g.id());
            assertEquals(200, g.status());
            assertEquals("hello", g.body());
            assertTrue(!g.text().contains("Connection: close"), g.text());
            // Many frames in one write, ids out of order (and one above 2^31): each answered with its id.
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            Map<Integer, String> want = new HashMap<>();
            for (int i = 0; i < 500; i++) {
                int id = i == 3 ? 0x8000_0001 : 1000 - i;
                all.writeBytes(TestPeer.request(id, TestPeer.get("/n?i=" + i)));
                want.put(id, "n=" + i);
            }
            p.write(all.toByteArray());
            for (int i = 0; i < 500; i++) {
                TestPeer.Got r = p.read();
                assertEquals(want.remove(r.id()), r.body(), "id " + r.id());
            }
            assertTrue(want.isEmpty());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void bodiesArriveWholeAndChunkedOnesDechunked(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(1, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nabcde"),
                    TestPeer.request(2, "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"));
            TestPeer.Got a = p.read();
            TestPeer.Got b = p.read();
            assertEquals("abcde", a.body());
            assertEquals(2, b.id());
            assertEquals("abcde", b.body());
            assertTrue(b.text().contains("Content-Length: 5"), b.text());
        }
    }

    /** A chunked body's trailers (RFC 9112 §7.1.2) reach the handler as over HTTP/1.1; a request after it has none. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void chunkedTrailersReachTheHandler(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(1, "POST /trailers HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nChecksum: x1\r\n\r\n"),
                    TestPeer.request(2, "POST /trailers HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nde"));
            TestPeer.Got a = p.read();
            TestPeer.Got b = p.read();
            assertEquals("abc Trailers[Checksum: x1]", a.body());
            assertEquals("de Trailers[]", b.body());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void blockingRoutesAnswerAndAThrowingHandlerIs500(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(1, TestPeer.get("/blocking")), TestPeer.request(2, TestPeer.get("/hello")),
                    TestPeer.request(3, TestPeer.get("/throws")), TestPeer.request(4, TestPeer.get("/missing")),
                    TestPeer.request(5, "GET /hello HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n"),
                    TestPeer.request(6, TestPeer.get("/hello")));
            int[] want = {200, 200, 500, 404, 400, 200};
            for (int i = 0; i < want.length; i++) {
                TestPeer.Got g = p.read(); // the blocking one (id 1) comes when its thread is done
                assertEquals(want[g.id() - 1], g.status(), g.text());
                if (g.id() == 1) {
                    assertEquals("blocked", g.body());
                }
            }
        }
    }

    /** Async handlers: many in flight on one connection, each answered with its id when it completes; a duplicate id is an error. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void asyncResponsesLeaveAsTheyCompleteWithTheirIds(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (int i = 1; i <= 200; i++) {
                all.writeBytes(TestPeer.request(i, TestPeer.get("/async?i=" + i)));
            }
            p.write(all.toByteArray());
            java.util.Set<Integer> seen = new java.util.HashSet<>();
            for (int i = 1; i <= 200; i++) {
                TestPeer.Got g = p.read();
                assertEquals("later " + g.id(), g.body());
                assertTrue(seen.add(g.id()), "answered once: " + g.id());
            }
        }
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            // The first stays off the loop: the same id again is a protocol error.
            p.write(TestPeer.request(5, TestPeer.get("/never")), TestPeer.request(5, TestPeer.get("/hello")));
            assertTrue(p.closedByServer());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void pingIsAnsweredWithItsId(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.frame(42, Frame.PING, new byte[0]), TestPeer.frame(43, Frame.PING, new byte[] {1}),
                    TestPeer.frame(9, Frame.CANCEL, new byte[0]), TestPeer.request(1, TestPeer.get("/hello")));
            TestPeer.Got ack = p.read();
            assertEquals(Frame.PING, ack.type());
            assertEquals(42, ack.id());
            assertEquals(1, ack.payload().length, "an answer, not a ping");
            assertEquals(1, p.read().id(), "an answer to a ping is not answered; a CANCEL for nothing is ignored");
        }
    }

    /** The handshake matrix: each wrong hello gets its reason byte, then the connection closes. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void wrongHellosGetTheirReasonThenClose(String transport) throws Exception {
        start(transport);
        int port = server.teleportPort();
        Object[][] cases = {
                {"GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII), Handshake.REASON_BAD_MAGIC},
                {TestPeer.hello(2, 0, 65536, 1), Handshake.REASON_BAD_VERSION},
                {TestPeer.hello(0, 0, 65536, 1), Handshake.REASON_BAD_VERSION},
                {TestPeer.hello(1, 3, 65536, 1), Handshake.REASON_UNSUPPORTED_COMPRESSION},
                {TestPeer.hello(1, 0, 100, 1), Handshake.REASON_BAD_LIMITS},
                {TestPeer.hello(1, 0, 65536, 0), Handshake.REASON_BAD_LIMITS},
        };
        for (Object[] c : cases) {
            try (TestPeer p = new TestPeer(port)) {
                p.write((byte[]) c[0]);
                assertEquals(c[1], p.refusal());
                assertTrue(p.closedByServer());
            }
        }
        // A hello in pieces, byte by byte, is accepted.
        try (TestPeer p = new TestPeer(port)) {
            for (byte b : TestPeer.hello(1, 0, 65536, 1)) {
                p.write(new byte[] {b});
            }
            assertEquals(Handshake.ACCEPTED, p.in.readUnsignedByte());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void noHelloWithinThreeSecondsIsRefused(String transport) throws Exception {
        start(transport);
        try (TestPeer p = new TestPeer(server.teleportPort())) {
            p.write(new byte[] {'P', 'G'});
            long t0 = System.nanoTime();
            assertEquals(Handshake.REASON_TIMEOUT, p.refusal());
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 2_500, "waited " + ms + " ms");
            assertTrue(p.closedByServer());
        }
    }

    /** Bad input closes only its own connection; a bystander goes on. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void badFramesCloseOnlyTheirConnection(String transport) throws Exception {
        start(transport);
        int port = server.teleportPort();
        byte[][] bad = {
                TestPeer.frame(1, 9, new byte[0]), // unknown type
                TestPeer.frame(1, Frame.RESPONSE, new byte[0]), // a server is never sent a RESPONSE
                TestPeer.request(0, TestPeer.get("/hello")), // id 0
                TestPeer.request(1, TestPeer.get("/hello") + TestPeer.get("/hello")), // two messages
                TestPeer.request(1, "GET /hello HTTP/1.1\r\nHost: t\r\n"), // a message cut short
                TestPeer.request(1, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 9\r\n\r\nabc"), // body cut short
                TestPeer.request(1, "\r\n\r\n"), // no message
                java.nio.ByteBuffer.allocate(Frame.HEADER).putInt(Integer.MAX_VALUE).putInt(1).put(Frame.REQUEST).array(), // oversized
        };
        try (TestPeer bystander = TestPeer.open(port)) {
            for (byte[] b : bad) {
                try (TestPeer p = TestPeer.open(port)) {
                    p.write(b);
                    assertTrue(p.closedByServer());
                }
                bystander.write(TestPeer.request(5, TestPeer.get("/hello")));
                assertEquals("hello", bystander.read().body());
            }
        }
    }

    /** Deflate both ways; the compressed stream split at every byte gives the same answers. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aDeflateStreamSplitAtEveryByteGivesTheSameAnswers(String transport) throws Exception {
        start(transport);
        int port = server.teleportPort();
        byte[][] frames = {TestPeer.request(1, TestPeer.get("/hello")),
                TestPeer.request(2, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 300\r\n\r\n" + "z".repeat(300)),
                TestPeer.request(3, TestPeer.get("/n?i=3"))};
        byte[] z;
        try (TestPeer p = TestPeer.openDeflate(port)) {
            z = p.deflated(frames);
            p.write(z);
            assertEquals("hello", p.read().body());
            assertEquals("z".repeat(300), p.read().body());
            assertEquals("n=3", p.read().body());
            // A second batch on the same stream: the window spans batches.
            p.write(p.deflated(TestPeer.request(4, TestPeer.get("/hello"))));
            assertEquals(4, p.read().id());
        }
        for (int cut = 1; cut < z.length; cut++) {
            try (TestPeer p = TestPeer.openDeflate(port)) {
                byte[] same = p.deflated(frames); // a fresh deflater: the same bytes
                p.write(java.util.Arrays.copyOf(same, cut));
                p.write(java.util.Arrays.copyOfRange(same, cut, same.length));
                assertEquals(1, p.read().id(), "cut at " + cut);
                assertEquals("z".repeat(300), p.read().body(), "cut at " + cut);
                assertEquals("n=3", p.read().body(), "cut at " + cut);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aCorruptDeflateStreamClosesOnlyItsConnection(String transport) throws Exception {
        start(transport);
        try (TestPeer bystander = TestPeer.openDeflate(server.teleportPort())) {
            try (TestPeer p = TestPeer.openDeflate(server.teleportPort())) {
                p.write(new byte[] {(byte) 0xFF, (byte) 0xFF, 0x12, 0x34, 0x56}); // an invalid block type
                assertTrue(p.closedByServer());
            }
            try (TestPeer p = TestPeer.openDeflate(server.teleportPort())) {
                // Inflates to a frame header announcing more than the server's max frame: refused from the header.
                p.write(p.deflated(java.nio.ByteBuffer.allocate(9).putInt(Integer.MAX_VALUE).putInt(1).put(Frame.REQUEST).array()));
                assertTrue(p.closedByServer());
            }
            bystander.write(bystander.deflated(TestPeer.request(9, TestPeer.get("/hello"))));
            assertEquals("hello", bystander.read().body());
        }
    }

    /** A client that dies (RST) in the middle of a batch, async requests still off the loop: the server goes on. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void aClientKilledMidBatchLeavesTheServerServing(String transport) throws Exception {
        start(transport);
        int port = server.teleportPort();
        for (int round = 0; round < 5; round++) {
            TestPeer p = TestPeer.open(port);
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (int i = 1; i <= 300; i++) {
                all.writeBytes(TestPeer.request(i, TestPeer.get(i % 2 == 0 ? "/never" : "/async?i=" + i)));
            }
            byte[] batch = all.toByteArray();
            p.out.write(batch, 0, batch.length / 2 + round * 7); // cut inside a frame
            p.out.flush();
            p.socket.setSoLinger(true, 0);
            p.close();
        }
        try (TestPeer p = TestPeer.open(port)) {
            p.write(TestPeer.request(1, TestPeer.get("/hello")));
            assertEquals("hello", p.read().body());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void shutdownSendsGoawayWithTheLastIdThenCloses(String transport) throws Exception {
        start(transport);
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(77, TestPeer.get("/hello")));
            assertEquals(77, p.read().id());
            Thread closer = new Thread(server::close);
            closer.start();
            TestPeer.Got g = p.read();
            assertEquals(Frame.GOAWAY, g.type());
            assertEquals(77, g.id());
            assertTrue(p.closedByServer());
            closer.join();
            server = null;
        }
    }
}
