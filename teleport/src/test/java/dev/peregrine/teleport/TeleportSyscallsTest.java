package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.loop.LoopContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The system calls a burst costs each loop, as Linux counts them for the loop's thread
 * ({@code /proc/thread-self/io}: {@code syscr}, {@code syscw}, read by a task on that loop; the reading
 * itself is measured and taken off). Counts, not time:
 * <ul>
 *   <li>the client reads a burst of 1,000 responses (about 340 KB) a read buffer at a time: the frame a
 *       read's end cuts is held in a buffer as large as the read buffer while responses are owed, not in
 *       the pool's smallest (4 KiB), which took one read per dozen responses;</li>
 *   <li>the server writes 1,000 answers of one input turn in full write buffers: the byte cap counts
 *       what the buffer holds since it was last written, so the few bytes of a frame after a full write
 *       do not leave in a write of their own.</li>
 * </ul>
 * Linux only (skipped where the file is missing).
 */
class TeleportSyscallsTest {
    private static final Path IO = Path.of("/proc/thread-self/io");
    private static final byte[] BODY = new byte[240];

    static {
        Arrays.fill(BODY, (byte) 'x');
    }

    private Server server;
    private TeleportClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private Server start(Transport t) {
        server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).teleport(0)
                .get("/b", (req, res) -> res.body(BODY))
                .start();
        return server;
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aBurstOfResponsesIsReadAReadBufferAtATime(Transport t) throws Exception {
        assumeTrue(Files.isReadable(IO), "Linux only");
        start(t);
        client = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t).maxInFlight(2000)
                .timeout(Duration.ofSeconds(30)).build();
        client.execute(ClientRequest.get("http://svc/b")); // connected, and the path warm
        LoopContext loop = clientLoop(client);
        long cost = readingCost(loop)[0];
        // The calls are made on the client's loop, so no caller wakes it (a wake-up is a read on NIO): the
        // reads counted are the responses'.
        CompletableFuture<long[]> before = new CompletableFuture<>();
        List<CompletableFuture<ClientResponse>> fs = new ArrayList<>();
        CompletableFuture<Void> made = new CompletableFuture<>();
        loop.eventLoop().execute(() -> {
            try {
                before.complete(ioHere());
            } catch (IOException | RuntimeException e) {
                before.completeExceptionally(e);
            }
            for (int i = 0; i < 1000; i++) {
                fs.add(client.send(ClientRequest.get("http://svc/b")));
            }
            made.complete(null);
        });
        made.get(10, TimeUnit.SECONDS);
        long bytes = 0;
        for (CompletableFuture<ClientResponse> f : fs) {
            ClientResponse r = f.get(30, TimeUnit.SECONDS);
            assertEquals(200, r.status());
            bytes += Frame.HEADER + 100 + r.body().length; // at least: the head is over 100 bytes
        }
        long reads = io(loop)[0] - before.get()[0] - cost;
        // Held in the pool's smallest buffer, the reads after a cut frame took 4 KiB (30-35 reads here); a read
        // buffer of 64 KiB takes 6 for the bytes, more when the loop reads while the server still writes (7-13).
        assertTrue(reads < bytes / 16384, reads + " reads for " + bytes + " bytes of responses");
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void answersPastAFullWriteBufferLeaveInFullWrites(Transport t) throws Exception {
        assumeTrue(Files.isReadable(IO), "Linux only");
        start(t);
        LoopContext loop = serverLoop(server);
        int writeBuffer = loop.config().writeBufferSize();
        try (TestPeer p = TestPeer.open(server.teleportPort())) {
            p.write(TestPeer.request(1, TestPeer.get("/b"))); // the path warm
            assertEquals(1, p.read().id());
            long[] cost = readingCost(loop);
            long[] before = io(loop);
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (int i = 1; i <= 1000; i++) {
                all.writeBytes(TestPeer.request(i, TestPeer.get("/b")));
            }
            p.write(all.toByteArray());
            long bytes = 0;
            for (int i = 1; i <= 1000; i++) {
                TestPeer.Got g = p.read();
                assertEquals(i, g.id());
                bytes += Frame.HEADER + g.payload().length;
            }
            long[] after = io(loop);
            long reads = after[0] - before[0] - cost[0];
            long writes = after[1] - before[1] - cost[1];
            long full = (bytes + writeBuffer - 1) / writeBuffer;
            // Each full buffer is one write, and each input turn (one read) ends with one more for the rest;
            // a byte cap counted across the full writes added one of a few bytes after each.
            assertTrue(writes <= full + reads, writes + " writes for " + bytes + " bytes (" + full
                    + " write buffers) in " + reads + " reads");
        }
    }

    /** A loop's read and write system calls so far ({@code syscr}, {@code syscw}), read on the loop's own thread. */
    static long[] io(LoopContext loop) throws Exception {
        CompletableFuture<long[]> got = new CompletableFuture<>();
        loop.eventLoop().execute(() -> {
            try {
                got.complete(ioHere());
            } catch (IOException | RuntimeException e) {
                got.completeExceptionally(e);
            }
        });
        return got.get(10, TimeUnit.SECONDS);
    }

    /** This thread's read and write system calls so far. */
    private static long[] ioHere() throws IOException {
        long[] rw = new long[2];
        for (String line : Files.readAllLines(IO)) {
            if (line.startsWith("syscr:")) {
                rw[0] = Long.parseLong(line.substring(6).trim());
            } else if (line.startsWith("syscw:")) {
                rw[1] = Long.parseLong(line.substring(6).trim());
            }
        }
        return rw;
    }

    /** What one {@link #io} adds to the counts it reads (its own open, reads and close, and the task's wake-up). */
    private static long[] readingCost(LoopContext loop) throws Exception {
        long[] a = io(loop);
        long[] b = io(loop);
        return new long[] {b[0] - a[0], b[1] - a[1]};
    }

    /** The client's (only) connection's loop (white-box: the client does not expose its channels). */
    static LoopContext clientLoop(TeleportClient c) throws Exception {
        java.lang.reflect.Field f = TeleportClient.class.getDeclaredField("channels");
        f.setAccessible(true);
        return ((TeleportChannel[]) f.get(c))[0].loop;
    }

    /** The server's (only) teleport loop. */
    static LoopContext serverLoop(Server s) throws Exception {
        java.lang.reflect.Field running = Server.class.getDeclaredField("running");
        running.setAccessible(true);
        Object launch = running.get(s);
        java.lang.reflect.Field f = launch.getClass().getDeclaredField("runningTeleport");
        f.setAccessible(true);
        return ((dev.peregrine.transport.TransportServer) f.get(launch)).loops().get(0);
    }
}
