package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compression over teleport, LZ4 beside deflate and none: the server answering each, an LZ4 stream
 * split at every byte, corrupt LZ4 input closing only its connection, the client against a scripted
 * server for every pair (what the client writes, what the server writes), and the client against a
 * Peregrine server with LZ4 both ways.
 */
class TeleportCompressionTest {
    private final List<AutoCloseable> open = new ArrayList<>();
    private Server server;

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        if (server != null) {
            server.close();
        }
    }

    private Server start(String transport) {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0)
                .get("/hello", (req, res) -> res.text("hello"))
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i")))
                .post("/echo", (req, res) -> res.body(req.bodyBytes()))
                .get("/delay", (req, res) -> {
                    dev.peregrine.Completion done = res.async();
                    String i = req.query().get("i");
                    new Thread(() -> {
                        done.response().text("d=" + i);
                        done.complete();
                    }).start();
                })
                .start();
        return server;
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void theServerAnswersInEachCompression(String transport) throws Exception {
        start(transport);
        for (int compression = 0; compression <= 2; compression++) {
            try (TestPeer p = TestPeer.openWith(server.teleportPort(), compression)) {
                ByteArrayOutputStream plain = new ByteArrayOutputStream();
                for (int i = 1; i <= 300; i++) {
                    plain.writeBytes(TestPeer.request(i, i % 2 == 0 ? TestPeer.get("/n?i=" + i)
                            : "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 400\r\n\r\n" + ("e" + i).repeat(400).substring(0, 400)));
                }
                p.write(p.encoded(plain.toByteArray()));
                for (int i = 1; i <= 300; i++) {
                    TestPeer.Got g = p.read();
                    assertEquals(g.id() % 2 == 0 ? "n=" + g.id() : ("e" + g.id()).repeat(400).substring(0, 400), g.body(),
                            "compression " + compression + ", id " + g.id());
                }
                p.write(p.encoded(TestPeer.request(1000, TestPeer.get("/hello")))); // the next batch on the same stream
                assertEquals(1000, p.read().id());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void anLz4StreamSplitAtEveryByteGivesTheSameAnswers(String transport) throws Exception {
        start(transport);
        byte[] first = TestPeer.lz4Block(concat(TestPeer.request(1, TestPeer.get("/hello")),
                TestPeer.request(2, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 300\r\n\r\n" + "z".repeat(300))));
        byte[] second = TestPeer.lz4Block(TestPeer.request(3, TestPeer.get("/n?i=3")));
        byte[] z = concat(first, second); // two blocks: a cut lands in either, or between them
        for (int cut = 1; cut < z.length; cut++) {
            try (TestPeer p = TestPeer.openWith(server.teleportPort(), 2)) {
                p.write(Arrays.copyOf(z, cut));
                p.write(Arrays.copyOfRange(z, cut, z.length));
                assertEquals("hello", p.read().body(), "cut at " + cut);
                assertEquals("z".repeat(300), p.read().body(), "cut at " + cut);
                assertEquals("n=3", p.read().body(), "cut at " + cut);
            }
        }
        // A frame spanning two blocks is whole once both are in.
        byte[] frame = TestPeer.request(9, "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 500\r\n\r\n" + "q".repeat(500));
        try (TestPeer p = TestPeer.openWith(server.teleportPort(), 2)) {
            p.write(concat(TestPeer.lz4Block(Arrays.copyOf(frame, 100)), TestPeer.lz4Block(Arrays.copyOfRange(frame, 100, frame.length))));
            assertEquals("q".repeat(500), p.read().body());
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void corruptLz4InputClosesOnlyItsConnection(String transport) throws Exception {
        start(transport);
        int port = server.teleportPort();
        byte[] good = TestPeer.lz4Block(TestPeer.request(1, TestPeer.get("/hello")));
        byte[] garbled = good.clone();
        for (int i = 8; i < garbled.length; i++) {
            garbled[i] = (byte) 0xF0; // a literal run longer than the block
        }
        byte[] shortPlain = good.clone();
        ByteBuffer.wrap(shortPlain).putInt(4, ByteBuffer.wrap(good).getInt(4) + 5); // decodes to fewer bytes than stated
        byte[][] bad = {
                garbled,
                shortPlain,
                ByteBuffer.allocate(8).putInt(10).putInt(0).array(), // no plain bytes
                ByteBuffer.allocate(8).putInt(10).putInt(Integer.MAX_VALUE).array(), // above the server's max frame
                ByteBuffer.allocate(8).putInt(1000).putInt(10).array(), // more compressed bytes than LZ4 can need for 10
                TestPeer.lz4Block(ByteBuffer.allocate(9).putInt(Integer.MAX_VALUE).putInt(1).put(Frame.REQUEST).array()), // an oversized frame inside
        };
        try (TestPeer bystander = TestPeer.openWith(port, 2)) {
            for (byte[] b : bad) {
                try (TestPeer p = TestPeer.openWith(port, 2)) {
                    p.write(b);
                    assertTrue(p.closedByServer());
                }
                bystander.write(bystander.encoded(TestPeer.request(5, TestPeer.get("/hello"))));
                assertEquals("hello", bystander.read().body());
            }
        }
    }

    static Stream<Object[]> transportsAndPairs() {
        return dev.peregrine.testing.Transports.names().flatMap(t -> {
            List<Object[]> all = new ArrayList<>();
            for (int w = 0; w <= 2; w++) {
                for (int r = 0; r <= 2; r++) {
                    all.add(new Object[] {t, w, r});
                }
            }
            return all.stream();
        });
    }

    /** The handshake matrix each way: the client writes {@code writes}, a scripted server writes {@code reads}. */
    @ParameterizedTest(name = "{0}: client writes {1}, server writes {2}")
    @MethodSource("transportsAndPairs")
    void theClientReadsAndWritesEachPair(String transport, int writes, int reads) throws Exception {
        try (ServerSocket ss = new ServerSocket(0)) {
            CompletableFuture<String> seen = new CompletableFuture<>();
            Thread peer = new Thread(() -> {
                try (Socket s = ss.accept()) {
                    s.setSoTimeout(30_000);
                    DataInputStream raw = new DataInputStream(s.getInputStream());
                    byte[] hello = new byte[Handshake.HELLO];
                    raw.readFully(hello);
                    s.getOutputStream().write(concat(new byte[] {0}, TestPeer.hello(1, reads, 65536, 100)));
                    DataInputStream in = new DataInputStream(writes == 1
                            ? new java.util.zip.InflaterInputStream(s.getInputStream(), new java.util.zip.Inflater(true))
                            : writes == 2 ? new TestPeer.Lz4Blocks(s.getInputStream()) : s.getInputStream());
                    int length = in.readInt();
                    int id = in.readInt();
                    in.readUnsignedByte();
                    byte[] payload = new byte[length];
                    in.readFully(payload);
                    seen.complete("compression " + hello[5] + ": " + new String(payload, 0, 12, java.nio.charset.StandardCharsets.US_ASCII));
                    byte[] response = TestPeer.frame(id, Frame.RESPONSE, "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nanswer!".getBytes());
                    s.getOutputStream().write(reads == 1 ? deflated(response) : reads == 2 ? TestPeer.lz4Block(response) : response);
                    s.getOutputStream().flush();
                    raw.read(); // until the client goes
                } catch (Exception e) {
                    seen.completeExceptionally(e);
                }
            });
            peer.start();
            TeleportClient tp = TeleportClient.builder("127.0.0.1", ss.getLocalPort()).transport(Transport.parse(transport))
                    .compression(TeleportCompression.ofCode(writes)).timeout(Duration.ofSeconds(20)).build();
            open.add(tp);
            ClientResponse r = null;
            while (r == null) {
                try {
                    r = tp.send(ClientRequest.get("http://svc/pair")).get(20, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    assertEquals(dev.peregrine.client.ClientException.Phase.CONNECT,
                            ((dev.peregrine.client.ClientException) e.getCause()).phase(), e.toString());
                }
            }
            assertEquals("answer!", r.text());
            assertEquals("compression " + writes + ": GET /pair HT", seen.get(20, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void lz4BothWaysWithAPeregrineServer(String transport) throws Exception {
        start(transport);
        TeleportClient tp = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(Transport.parse(transport))
                .compression(TeleportCompression.LZ4).maxInFlight(5000).timeout(Duration.ofSeconds(30)).build();
        open.add(tp);
        assertEquals("hello", tp.execute(ClientRequest.get("http://svc/hello")).text());
        List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            fs.add(i % 3 == 0 ? tp.send(ClientRequest.builder("POST", "http://svc/echo").body(("body " + i).repeat(i % 50 == 0 ? 20_000 : 50)).build())
                    : i % 3 == 1 ? tp.send(ClientRequest.get("http://svc/delay?i=" + i))
                    : tp.send(ClientRequest.get("http://svc/n?i=" + i)));
        }
        for (int i = 0; i < fs.size(); i++) {
            assertEquals(i % 3 == 0 ? ("body " + i).repeat(i % 50 == 0 ? 20_000 : 50) : i % 3 == 1 ? "d=" + i : "n=" + i,
                    fs.get(i).get(60, TimeUnit.SECONDS).text());
        }
    }

    private static byte[] deflated(byte[] plain) {
        java.util.zip.Deflater d = new java.util.zip.Deflater(java.util.zip.Deflater.DEFAULT_COMPRESSION, true);
        d.setInput(plain);
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        int n;
        do {
            n = d.deflate(buf, 0, buf.length, java.util.zip.Deflater.SYNC_FLUSH);
            z.write(buf, 0, n);
        } while (n == buf.length);
        d.end();
        return z.toByteArray();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }
}
