package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;
import dev.peregrine.testing.AllocationMeter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The teleport client's reuse path ({@code send(request, reusableResponse, callback)}) allocates
 * nothing per call, as the HTTP/1.1 client's ({@code ReuseAllocationTest}): bytes allocated by the
 * client's loop thread while {@value #IN_FLIGHT} chains of calls run against a Peregrine teleport
 * server over real sockets, each callback sending the next call with the same response object (a
 * call made on the loop stays on it: the whole calling path is that thread), for N = 20,000 and then
 * 2N responses. The 2N run's excess over the N run is what N calls cost; it must stay under 1 KiB,
 * with no compression, deflate and LZ4, on NIO and epoll. (The server's {@code Date} field changes
 * once a second: the reader makes one new {@code String} then, well inside the bound.)
 */
class TeleportReuseAllocationTest {
    private static final int REQUESTS = 20_000;
    private static final int IN_FLIGHT = 8;
    private static final long MAX_DIFFERENCE = 1024;
    private static final int ATTEMPTS = 3;

    static Stream<Object[]> cases() {
        return dev.peregrine.testing.Transports.names().filter(t -> !t.equals("io_uring"))
                .flatMap(t -> Stream.of(TeleportCompression.values()).map(c -> new Object[]{t, c}));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void reusedCallsAllocateNothingOnTheClientLoop(String transport, TeleportCompression compression) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).teleport(0)
                .get("/plaintext", (req, res) -> res.text("Hello, World!")).start();
             TeleportClient tp = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(Transport.parse(transport))
                     .compression(compression).timeout(Duration.ofSeconds(20)).build()) {
            Chains chains = new Chains(tp, ClientRequest.get("http://svc/plaintext"));
            chains.run(REQUESTS); // warm-up: connection open, arrays and free lists grown, the path compiled
            String what = transport + " " + compression;
            long best = Long.MAX_VALUE;
            for (int attempt = 0; attempt < ATTEMPTS && best >= MAX_DIFFERENCE; attempt++) {
                long id = chains.loopThread.getId();
                long before = AllocationMeter.allocatedBytes(id);
                chains.run(REQUESTS);
                long once = AllocationMeter.allocatedBytes(id) - before;
                before = AllocationMeter.allocatedBytes(id);
                chains.run(2 * REQUESTS);
                long twice = AllocationMeter.allocatedBytes(id) - before;
                System.out.printf("allocation teleport client %s: %d bytes over %d calls, %d over %d%n", what, once, REQUESTS,
                        twice, 2 * REQUESTS);
                best = Math.min(best, twice - once);
            }
            assertTrue(best < MAX_DIFFERENCE, what + ": " + REQUESTS + " more calls allocated " + best + " more bytes on the client's loop");
        }
    }

    /**
     * {@value #IN_FLIGHT} chains of calls on the reuse path: each callback (on the client's loop) checks
     * the response and sends the next call with the same response object until the run's count is sent.
     */
    private static final class Chains implements ResponseCallback {
        private final TeleportClient sender;
        private final ClientRequest request;
        private final ReusableResponse[] responses = new ReusableResponse[IN_FLIGHT];
        private int toSend;
        private int toAnswer;
        private volatile String problem;
        private volatile CountDownLatch finished;
        volatile Thread loopThread;

        Chains(TeleportClient sender, ClientRequest request) {
            this.sender = sender;
            this.request = request;
            for (int i = 0; i < IN_FLIGHT; i++) {
                responses[i] = new ReusableResponse();
            }
        }

        void run(int requests) throws InterruptedException {
            toSend = requests - IN_FLIGHT;
            toAnswer = requests;
            finished = new CountDownLatch(1);
            for (ReusableResponse r : responses) {
                sender.send(request, r, this);
            }
            assertTrue(finished.await(60, TimeUnit.SECONDS), "the chains did not finish: " + toAnswer + " left");
            assertEquals(null, problem);
        }

        @Override
        public void onResponse(ReusableResponse r, ClientException failure) {
            loopThread = Thread.currentThread();
            if (failure != null || r.status() != 200 || r.bodyLength() != 13 || r.body().get(12) != '!') {
                problem = failure != null ? failure.toString() : "unexpected response " + r;
                finished.countDown();
                return;
            }
            if (toSend > 0) {
                toSend--;
                sender.send(request, r, this); // from the loop: stays on it, the same response object again
            }
            if (--toAnswer == 0) {
                finished.countDown();
            }
        }
    }
}
