package dev.peregrine.client;

import dev.peregrine.Transport;
import dev.peregrine.testing.AllocationMeter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Zero allocation per request on the reuse path ({@code send(request, reusableResponse, callback)}),
 * measured where the client works: bytes allocated by the client's loop thread
 * ({@link com.sun.management.ThreadMXBean#getThreadAllocatedBytes}) while {@value #IN_FLIGHT} chains of
 * calls run over real sockets, each callback sending the next call with the same response object, for
 * N = 20,000 and then 2N responses. What the 2N run allocates beyond the N run is what N requests cost
 * (one-off work does not repeat); it must stay under 1 KiB for the pooled {@link HttpClient} and the
 * {@link PipelineClient}.
 *
 * <p>The server answers the same bytes every time (a raw socket server, no {@code Date}): a changing
 * header value is the one thing the client's reader allocates for (a new {@code String}, once a second
 * per connection against a real server), and it would blur what is measured here.
 */
class ReuseAllocationTest {
    private static final int REQUESTS = 20_000;
    private static final int IN_FLIGHT = 8;
    private static final long MAX_DIFFERENCE = 1024;
    private static final int ATTEMPTS = 3;
    private static final byte[] ANSWER = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\n\r\n"
            + "Hello, World!").getBytes(StandardCharsets.ISO_8859_1);

    private final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void pooledCallsAllocateNothingOnTheLoop(Transport t) throws Exception {
        try (FixedAnswerServer server = new FixedAnswerServer();
             HttpClient client = HttpClient.builder().transport(t).build()) {
            assertNoAllocation(client, server, "pooled " + t, t);
            assertEquals(IN_FLIGHT, server.accepted(), "one connection per chain, kept alive throughout");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void pipelinedCallsAllocateNothingOnTheLoop(Transport t) throws Exception {
        try (FixedAnswerServer server = new FixedAnswerServer();
             HttpClient http = HttpClient.builder().transport(t).build();
             PipelineClient pipe = PipelineClient.on(http).maxConns(1).maxPending(64).build()) {
            assertNoAllocation(pipe, server, "pipelined " + t, t);
            assertEquals(1, server.accepted(), "every chain on the one pipelined connection");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void http2CallsAllocateNothingOnTheLoop(Transport t) throws Exception {
        // Peregrine's HTTP/2 server (its own loop thread; only the client's loop is counted). Its date
        // field changes once a second: one new String then, well inside the bound.
        try (dev.peregrine.Server server = dev.peregrine.Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .http2(true).get("/plaintext", (req, res) -> res.text("Hello, World!")).start();
             HttpClient client = HttpClient.builder().transport(t).http2(Http2Mode.PRIOR_KNOWLEDGE).build()) {
            Chains chains = new Chains(client, ClientRequest.get("http://127.0.0.1:" + server.port() + "/plaintext"));
            assertNoAllocation(chains, "http2 " + t, t);
            assertEquals(1, server.metrics().accepted, "every chain's streams on one connection");
        }
    }

    private void assertNoAllocation(HttpSender sender, FixedAnswerServer server, String what, Transport t) throws InterruptedException {
        assertNoAllocation(new Chains(sender, ClientRequest.get(server.url())), what, t);
    }

    private void assertNoAllocation(Chains chains, String what, Transport t) throws InterruptedException {
        chains.run(REQUESTS); // warm-up: connections opened, arrays grown, the path compiled
        // Not ours (AllocationMeter.notOursPerWakeup: on NIO the JDK selector boxes a ready socket's fd
        // above 127): at most one ready socket per response.
        long bound = MAX_DIFFERENCE + AllocationMeter.notOursPerWakeup(t.name()) * REQUESTS;
        long best = Long.MAX_VALUE;
        for (int attempt = 0; attempt < ATTEMPTS && best >= bound; attempt++) {
            long id = chains.loopThread.getId();
            long before = threads.getThreadAllocatedBytes(id);
            chains.run(REQUESTS);
            long once = threads.getThreadAllocatedBytes(id) - before;
            before = threads.getThreadAllocatedBytes(id);
            chains.run(2 * REQUESTS);
            long twice = threads.getThreadAllocatedBytes(id) - before;
            System.out.printf("allocation %s: %d bytes over %d requests, %d over %d%n", what, once, REQUESTS, twice, 2 * REQUESTS);
            best = Math.min(best, twice - once);
        }
        assertTrue(best < bound, what + ": " + REQUESTS + " more requests allocated " + best + " more bytes on the loop");
    }

    /**
     * {@value #IN_FLIGHT} chains of calls on the reuse path: each callback (on the loop) checks the
     * response and sends the next call with the same response object until the run's count is sent.
     * Thread: fields are the loop's once a run started (the first sends hop to it through its queue).
     */
    private static final class Chains implements ResponseCallback {
        private final HttpSender sender;
        private final ClientRequest request;
        private final ReusableResponse[] responses = new ReusableResponse[IN_FLIGHT];
        private int toSend;
        private int toAnswer;
        private volatile String problem;
        private volatile CountDownLatch finished;
        volatile Thread loopThread;

        Chains(HttpSender sender, ClientRequest request) {
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
                problem = failure != null ? failure.toString() : "unexpected response " + r.toString();
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

    /** Answers every request it reads with {@link #ANSWER}, pipelined requests in one write. */
    private static final class FixedAnswerServer implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();

        FixedAnswerServer() throws IOException {
            AcceptLoop.start("fixed-answer", () -> {
                Socket s = listener.accept();
                accepted.incrementAndGet();
                return s;
            }, FixedAnswerServer::serve);
        }

        /** Counts request ends (CRLF CRLF) in what arrives and answers each; requests have no body here. */
        private static void serve(Socket s) {
            byte[] in = new byte[64 * 1024];
            byte[] out = new byte[0];
            int matched = 0;
            try (s; InputStream is = s.getInputStream(); OutputStream os = s.getOutputStream()) {
                int n;
                while ((n = is.read(in)) > 0) {
                    int requests = 0;
                    for (int i = 0; i < n; i++) {
                        byte b = in[i];
                        if (b == "\r\n\r\n".charAt(matched)) {
                            if (++matched == 4) {
                                requests++;
                                matched = 0;
                            }
                        } else {
                            matched = b == '\r' ? 1 : 0;
                        }
                    }
                    if (out.length < requests * ANSWER.length) {
                        out = new byte[requests * ANSWER.length];
                        for (int i = 0; i < requests; i++) {
                            System.arraycopy(ANSWER, 0, out, i * ANSWER.length, ANSWER.length);
                        }
                    }
                    os.write(out, 0, requests * ANSWER.length);
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        String url() {
            return "http://127.0.0.1:" + listener.getLocalPort() + "/plaintext";
        }

        int accepted() {
            return accepted.get();
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
