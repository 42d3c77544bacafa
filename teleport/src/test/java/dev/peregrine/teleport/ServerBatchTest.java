package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The server's batching ({@link ServerBatch}): the batch delay honoured, counted in batches and frames
 * written (never timed), the frame cap cutting batches, and a delayed batch flushed by the shutdown.
 */
class ServerBatchTest {
    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** The teleport loop's state, reached by reflection (white-box: the server does not expose its loops). */
    private static TeleportLoop loop(Server s) throws Exception {
        java.lang.reflect.Field engineSide = Server.class.getDeclaredField("running"); // the server package's ServerLaunch
        engineSide.setAccessible(true);
        Object launch = engineSide.get(s);
        java.lang.reflect.Field f = launch.getClass().getDeclaredField("runningTeleport");
        f.setAccessible(true);
        List<LoopContext> loops = ((dev.peregrine.transport.TransportServer) f.get(launch)).loops();
        return (TeleportLoop) loops.get(0).protocols();
    }

    private Server start(String transport, Duration delay, int frames) {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0)
                .teleportMaxBatchDelay(delay).teleportMaxBatchFrames(frames)
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i")))
                .get("/async", (req, res) -> {
                    dev.peregrine.Completion done = res.async();
                    String i = req.query().get("i");
                    new Thread(() -> {
                        done.response().text("a=" + i);
                        done.complete();
                    }).start();
                })
                .start();
        return server;
    }

    private static byte[] requests(int from, int to, String path) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int i = from; i <= to; i++) {
            all.writeBytes(TestPeer.request(i, TestPeer.get(path + "?i=" + i)));
        }
        return all.toByteArray();
    }

    /**
     * A delay of an hour and batches of 10 frames: 25 answers leave as two batches of 10, the other 5
     * wait (counted: 20 frames, 2 batches), until 5 more fill their batch; a shutdown writes what waits.
     */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void theBatchDelayIsHonouredAndTheFrameCapCutsBatches(String transport) throws Exception {
        start(transport, Duration.ofHours(1), 10);
        TeleportLoop tl = loop(server);
        for (int compression = 0; compression <= 2; compression++) {
            long batches0 = tl.batches;
            long frames0 = tl.framesOut;
            try (TestPeer p = TestPeer.openWith(server.teleportPort(), compression)) {
                p.write(p.encoded(requests(1, 25, "/n")));
                for (int i = 1; i <= 20; i++) {
                    assertEquals(i, p.read().id());
                }
                Await.until("the 25 answers made", () -> tl.framesOut - frames0 == 25); // all handled, 5 waiting
                assertEquals(2, tl.batches - batches0, "compression " + compression + ": two full batches left, five frames wait");
                // Async answers join the waiting batch: 5 more fill it.
                p.write(p.encoded(requests(26, 30, "/async")));
                java.util.Set<Integer> ids = new java.util.HashSet<>();
                for (int i = 0; i < 10; i++) {
                    ids.add(p.read().id());
                }
                assertEquals(10, ids.size());
                assertEquals(3, tl.batches - batches0, "the third batch left when its tenth frame came");
                assertEquals(30, tl.framesOut - frames0);
            }
        }
        // A batch waiting on its delay is written at shutdown, before the GOAWAY.
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(requests(1, 3, "/n"));
            Await.until("the 3 answers made", () -> tl.framesOut >= 93);
            Thread closer = new Thread(server::close);
            closer.start();
            for (int i = 1; i <= 3; i++) {
                assertEquals(i, p.read().id());
            }
            assertEquals(Frame.GOAWAY, p.read().type());
            closer.join();
            server = null;
        }
    }

    /** No delay: each input turn's answers leave together (one batch for a read holding many requests). */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void withoutADelayAnInputTurnIsOneBatch(String transport) throws Exception {
        start(transport, Duration.ZERO, 1024);
        TeleportLoop tl = loop(server);
        try (TestPeer p = TestPeer.openWith(server.teleportPort(), 2)) {
            long batches0 = tl.batches;
            p.write(p.encoded(requests(1, 50, "/n"))); // one LZ4 block: decoded in one turn
            for (int i = 1; i <= 50; i++) {
                assertEquals("n=" + i, p.read().body());
            }
            assertEquals(1, tl.batches - batches0);
        }
    }
}
