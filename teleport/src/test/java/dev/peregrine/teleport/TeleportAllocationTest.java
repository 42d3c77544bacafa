package dev.peregrine.teleport;

import dev.peregrine.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The teleport server's inline GET allocates nothing on the loop threads per request, with no
 * compression, deflate and LZ4 (lz4-java's native code on direct buffers; its safe Java code where that
 * does not load). Measured as the e2e {@code AllocationTest} does: N requests, then 2N, the difference
 * kept from the best of a few attempts.
 */
class TeleportAllocationTest {
    private static final int REQUESTS = 20_000;
    private static final int DEPTH = 16;
    private static final int ATTEMPTS = 5;
    private static final long MAX_DIFFERENCE = 1024;

    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static List<Long> loops(String transport) {
        List<Long> ids = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("peregrine-" + transport + "-") && t.isAlive()) {
                ids.add(t.getId());
            }
        }
        return ids;
    }

    private long allocated(List<Long> ids) {
        long sum = 0;
        for (long id : ids) {
            sum += dev.peregrine.testing.AllocationMeter.allocatedBytes(id);
        }
        return sum;
    }

    /** {@code requests} GETs in batches of {@link #DEPTH}, each batch answered before the next. */
    private static void run(TestPeer p, byte[] plainBatch, byte[] sameBatch, int requests) throws IOException {
        for (int done = 0; done < requests; done += DEPTH) {
            p.write(sameBatch != null ? sameBatch : p.encoded(plainBatch)); // deflate: the stream goes on, each batch is new
            for (int i = 0; i < DEPTH; i++) {
                TestPeer.Got g = p.read();
                if (g.type() != Frame.RESPONSE || g.payload().length == 0) {
                    throw new IOException("not a response: " + g.text());
                }
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void anInlineGetAllocatesNothingOnTheLoop(String transport) throws Exception {
        assertTrue(dev.peregrine.testing.AllocationMeter.allocatedBytes(Thread.currentThread().getId()) > 0, "thread allocation is measured");
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0)
                .get("/hello", (req, res) -> res.text("Hello, World!"))
                .start();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 1; i <= DEPTH; i++) {
            b.writeBytes(TestPeer.request(1000 + i, TestPeer.get("/hello"))); // past Integer's cache, as a real client's ids are
        }
        byte[] plain = b.toByteArray();
        for (int compression = 0; compression <= 2; compression++) {
            try (TestPeer p = TestPeer.openWith(server.teleportPort(), compression)) {
                byte[] same = compression == 1 ? null : p.encoded(plain); // an LZ4 block stands alone
                List<Long> ids = loops(transport);
                assertEquals(2, ids.size(), "the HTTP loop and the teleport loop");
                run(p, plain, same, REQUESTS); // warm-up
                // Not ours, per wake-up (AllocationMeter.notOursPerWakeup): two per batch, the read and the send.
                long bound = MAX_DIFFERENCE + 2 * dev.peregrine.testing.AllocationMeter.notOursPerWakeup(transport) * REQUESTS / DEPTH;
                long best = Long.MAX_VALUE;
                for (int attempt = 0; attempt < ATTEMPTS && best >= bound; attempt++) {
                    long before = allocated(ids);
                    run(p, plain, same, REQUESTS);
                    long once = allocated(ids) - before;
                    before = allocated(ids);
                    run(p, plain, same, 2 * REQUESTS);
                    long twice = allocated(ids) - before;
                    System.out.printf("teleport allocation %s compression %d: %d bytes over %d, %d over %d (lz4 native: %s)%n",
                            transport, compression, once, REQUESTS, twice, 2 * REQUESTS, Lz4Library.isNative());
                    best = Math.min(best, twice - once);
                }
                assertTrue(best < bound, transport + " compression " + compression + ": " + REQUESTS
                        + " more requests allocated " + best + " more bytes on the loops");
            }
        }
    }
}
