package dev.peregrine.e2e;

import dev.peregrine.testing.AllocationMeter;
import dev.peregrine.testing.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A WebSocket echo ({@code /ws/echo}, messages of 16 bytes and 4 KiB, compression off) allocates nothing
 * on the loop threads per message: the frame is parsed and unmasked in place, handed to the handler
 * where it lies, and echoed from there into the write buffer. Measured as {@link AllocationTest} does:
 * N messages, then 2N, the difference kept from the best of a few attempts.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class WebSocketAllocationTest extends ServerTestBase {
    private static final int MESSAGES = 20_000;
    private static final int DEPTH = 16;
    private static final int ATTEMPTS = 5;
    private static final long MAX_DIFFERENCE = 1024;
    /** The most bytes one read hands the loop: a batch of 4 KiB messages (64 KiB) wakes it that many times more. */
    private static final int READ_BYTES = 16 * 1024;

    private final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    WebSocketAllocationTest(ServerFactory factory) {
        super(factory);
    }

    private List<Long> loopThreadIds() {
        Await.until(() -> alive().size() == factory.threads, () -> "loop threads alive: " + alive().size());
        return alive();
    }

    private List<Long> alive() {
        List<Long> ids = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(factory.loopThreadPrefix) && t.isAlive()) {
                ids.add(t.getId());
            }
        }
        return ids;
    }

    private long allocated(List<Long> ids) {
        long sum = 0;
        for (long id : ids) {
            sum += threads.getThreadAllocatedBytes(id);
        }
        return sum;
    }

    private static void run(WsRawClient c, byte[] batch, byte[] expected, int messages) throws IOException {
        OutputStream out = c.out;
        InputStream in = c.in;
        byte[] answers = new byte[expected.length];
        for (int done = 0; done < messages; done += DEPTH) {
            out.write(batch);
            if (in.readNBytes(answers, 0, answers.length) != answers.length) {
                throw new IOException("connection closed");
            }
        }
        assertArrayEquals(expected, answers);
    }

    private void assertNoAllocation(int size) throws IOException {
        assertTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        try (WsRawClient c = WsRawClient.open(server.port(), "/ws/echo", "")) {
            byte[] payload = new byte[size];
            for (int i = 0; i < size; i++) {
                payload[i] = (byte) (i * 7);
            }
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            java.io.ByteArrayOutputStream e = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < DEPTH; i++) {
                b.writeBytes(c.frame(0x82, payload, true));
                e.writeBytes(c.frame(0x82, payload, false)); // what comes back: unmasked
            }
            byte[] batch = b.toByteArray();
            byte[] expected = e.toByteArray();
            List<Long> loops = loopThreadIds();
            run(c, batch, expected, MESSAGES); // warm-up
            // Not ours, per wake-up (AllocationMeter.notOursPerWakeup: the JDK selector's boxed fd, Netty's
            // io_uring callback): a batch wakes the loop for the read, the send and each further 16 KiB.
            long wakeupsPerBatch = 2 + batch.length / READ_BYTES;
            long bound = MAX_DIFFERENCE
                    + AllocationMeter.notOursPerWakeup(factory.transport) * wakeupsPerBatch * MESSAGES / DEPTH;
            long best = Long.MAX_VALUE;
            for (int attempt = 0; attempt < ATTEMPTS && best >= bound; attempt++) {
                long before = allocated(loops);
                run(c, batch, expected, MESSAGES);
                long once = allocated(loops) - before;
                before = allocated(loops);
                run(c, batch, expected, 2 * MESSAGES);
                long twice = allocated(loops) - before;
                System.out.printf("websocket allocation %s %d B messages: %d bytes over %d, %d over %d%n",
                        factory, size, once, MESSAGES, twice, 2 * MESSAGES);
                best = Math.min(best, twice - once);
            }
            assertTrue(best < bound, factory + ": " + MESSAGES + " more messages of " + size
                    + " bytes allocated " + best + " more bytes on the loop");
        }
    }

    @Test
    void echoOfSixteenBytesAllocatesNothing() throws IOException {
        assertNoAllocation(16);
    }

    @Test
    void echoOfFourKibAllocatesNothing() throws IOException {
        assertNoAllocation(4096);
    }
}
