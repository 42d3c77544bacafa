package dev.peregrine.client;

import dev.peregrine.BodyListener;
import dev.peregrine.Completion;
import dev.peregrine.Handler;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.buffer.BufferPool;
import dev.peregrine.testing.ScriptedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Request bodies from a producer and response bodies to a listener, with backpressure: 1 GiB each way
 * through the client with its memory checked by counters (the loop's pooled bytes, the loop thread's
 * allocated bytes), the framing rules, and the failures.
 */
class StreamedBodiesTest {
    private static final long GIB = 1L << 30;

    /** The byte at {@code offset} of every test body. */
    private static byte at(long offset) {
        return (byte) (offset % 251);
    }

    /** Bytes allocated so far by the calling thread (HotSpot's counter). */
    private static long allocatedByThisThread() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    private static BufferPool clientPool(HttpClient http) {
        return http.loops().get(0).pool();
    }

    /** A producer of {@code size} bytes of the test pattern, counting its calls. */
    private static final class PatternProducer implements dev.peregrine.BodyProducer {
        final long size;
        long sent;
        long calls;
        long maxLentBytes;
        long allocatedAtStart = -1;
        long allocated;
        private final BufferPool pool;

        PatternProducer(long size, BufferPool pool) {
            this.size = size;
            this.pool = pool;
        }

        @Override
        public boolean produce(ByteBuffer dst) {
            if (allocatedAtStart < 0) {
                allocatedAtStart = allocatedByThisThread();
            }
            calls++;
            if (pool != null) {
                maxLentBytes = Math.max(maxLentBytes, pool.lentBytes());
            }
            int n = (int) Math.min(dst.remaining(), size - sent);
            for (int i = 0; i < n; i++) {
                dst.put(at(sent + i));
            }
            sent += n;
            allocated = allocatedByThisThread() - allocatedAtStart;
            return sent < size;
        }
    }

    /** A listener checking the pattern, counting bytes, loop memory and the loop thread's allocation. */
    private static final class PatternListener implements ResponseBodyListener {
        long received;
        long mismatches;
        long pieces;
        long maxLentBytes;
        long allocatedAtHead;
        long allocated;
        int status;
        private final BufferPool pool;

        PatternListener(BufferPool pool) {
            this.pool = pool;
        }

        @Override
        public void onHead(ClientResponse head, ReadValve valve) {
            status = head.status();
            allocatedAtHead = allocatedByThisThread();
        }

        @Override
        public void onData(ByteBuffer data) {
            pieces++;
            maxLentBytes = Math.max(maxLentBytes, pool.lentBytes());
            for (int i = data.position(); i < data.limit(); i++) {
                if (data.get(i) != at(received + i - data.position())) {
                    mismatches++;
                }
            }
            received += data.remaining();
            allocated = allocatedByThisThread() - allocatedAtHead;
        }
    }

    private static Handler patternBody(long size) {
        return (req, res) -> res.stream(new PatternProducer(size, null));
    }

    /** A streaming handler answering "bytes mismatches" of the pattern it received. */
    private static Handler counting() {
        return (req, res) -> {
            long[] count = {0, 0};
            Completion done = res.async();
            req.onBody(new BodyListener() {
                @Override
                public void onData(ByteBuffer data) {
                    for (int i = data.position(); i < data.limit(); i++) {
                        if (data.get(i) != at(count[0] + i - data.position())) {
                            count[1]++;
                        }
                    }
                    count[0] += data.remaining();
                }

                @Override
                public void onEnd() {
                    done.response().text(count[0] + " " + count[1]);
                    done.complete();
                }
            });
        };
    }

    @Test
    void oneGibibyteDownloadedThroughAListenerInBoundedMemory() throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).get("/big", patternBody(GIB)).start();
             HttpClient http = HttpClient.builder().maxResponseBodySize(1 << 20).build()) {
            PatternListener listener = new PatternListener(clientPool(http));
            ClientResponse head = http.send(ClientRequest.get("http://127.0.0.1:" + server.port() + "/big"), listener)
                    .get(300, TimeUnit.SECONDS);
            assertEquals(200, head.status());
            assertEquals("chunked", head.header("Transfer-Encoding"));
            assertEquals(0, head.body().length);
            assertEquals(GIB, listener.received, "every byte, past the 1 MiB in-memory limit");
            assertEquals(0, listener.mismatches);
            assertTrue(listener.maxLentBytes <= 256 * 1024, "the loop lent at most " + listener.maxLentBytes + " bytes");
            assertTrue(listener.allocated < 64L << 20, "the loop thread allocated " + listener.allocated
                    + " bytes over " + listener.pieces + " pieces");
            ClientException tooLarge = assertThrows(ClientException.class,
                    () -> http.get("http://127.0.0.1:" + server.port() + "/big"), "the in-memory limit holds for ordinary calls");
            assertEquals(ClientException.Phase.TOO_LARGE, tooLarge.phase());
        }
    }

    @Test
    void oneGibibyteUploadedFromAProducerInBoundedMemory() throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).maxStreamedBodySize(GIB)
                .put("/count", Handlers.streaming(counting())).start();
             HttpClient http = HttpClient.builder().build()) {
            PatternProducer producer = new PatternProducer(GIB, clientPool(http));
            ClientResponse r = http.send(ClientRequest.builder("PUT", "http://127.0.0.1:" + server.port() + "/count")
                    .body(GIB, producer).build()).get(300, TimeUnit.SECONDS);
            assertEquals(GIB + " 0", r.text());
            assertEquals(GIB, producer.sent);
            assertTrue(producer.maxLentBytes <= 256 * 1024, "the loop lent at most " + producer.maxLentBytes + " bytes");
            assertTrue(producer.allocated < 64L << 20, "the loop thread allocated " + producer.allocated
                    + " bytes over " + producer.calls + " producer calls");
            assertEquals(1, server.metrics().accepted);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void chunkedAndLengthUploadsAndStreamedDownloadsOnBothTransports(Transport t) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .post("/len", (req, res) -> {
                    byte[] b = req.bodyBytes();
                    long bad = 0;
                    for (int i = 0; i < b.length; i++) {
                        bad += b[i] == at(i) ? 0 : 1;
                    }
                    res.text(b.length + " " + bad + " " + (req.header("Transfer-Encoding") != null ? "chunked" : "length"));
                })
                .get("/big", patternBody(3_000_000))
                .get("/fixed", (req, res) -> {
                    byte[] b = new byte[700_000];
                    for (int i = 0; i < b.length; i++) {
                        b[i] = at(i);
                    }
                    res.body(b);
                })
                .start();
             HttpClient http = HttpClient.builder().transport(t).build()) {
            String base = "http://127.0.0.1:" + server.port();
            assertEquals("300000 0 chunked", http.execute(ClientRequest.builder("POST", base + "/len")
                    .body(-1, new PatternProducer(300_000, null)).build()).text());
            assertEquals("300000 0 length", http.execute(ClientRequest.builder("POST", base + "/len")
                    .body(300_000, new PatternProducer(300_000, null)).build()).text());
            assertEquals("0 0 chunked", http.execute(ClientRequest.builder("POST", base + "/len")
                    .body(-1, new PatternProducer(0, null)).build()).text());
            for (String path : new String[] {"/big", "/fixed"}) {
                PatternListener l = new PatternListener(clientPool(http));
                ClientResponse head = http.send(ClientRequest.get(base + path), l).get(60, TimeUnit.SECONDS);
                assertEquals(200, head.status());
                assertEquals(path.equals("/big") ? 3_000_000 : 700_000, l.received);
                assertEquals(0, l.mismatches);
            }
            assertEquals(1, server.metrics().accepted, "every exchange reused the one connection");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aListenerPausingAtEveryPieceAndResumedFromAnotherThreadGetsEverything(Transport t) throws Exception {
        ExecutorService resumer = Executors.newSingleThreadExecutor();
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/big", patternBody(5_000_000)).start();
             HttpClient http = HttpClient.builder().transport(t).build()) {
            PatternListener counter = new PatternListener(clientPool(http));
            AtomicLong pauses = new AtomicLong();
            ResponseBodyListener pausing = new ResponseBodyListener() {
                private ReadValve valve;

                @Override
                public void onHead(ClientResponse head, ReadValve v) {
                    valve = v;
                    counter.onHead(head, v);
                }

                @Override
                public void onData(ByteBuffer data) {
                    counter.onData(data);
                    valve.pause();
                    pauses.incrementAndGet();
                    resumer.execute(valve::resume);
                }
            };
            ClientResponse head = http.send(ClientRequest.get("http://127.0.0.1:" + server.port() + "/big"), pausing)
                    .get(60, TimeUnit.SECONDS);
            assertEquals(200, head.status());
            assertEquals(5_000_000, counter.received);
            assertEquals(0, counter.mismatches);
            assertTrue(pauses.get() > 1);
        } finally {
            resumer.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void aPauseLeftOnAtTheLastPieceDoesNotStopThePooledConnectionFromReading(Transport t) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/small", (req, res) -> res.text("0123456789")).start();
             HttpClient http = HttpClient.builder().transport(t).readTimeout(Duration.ofSeconds(20)).build()) {
            String url = "http://127.0.0.1:" + server.port() + "/small";
            ResponseBodyListener.ReadValve[] valve = new ResponseBodyListener.ReadValve[1];
            ClientResponse head = http.send(ClientRequest.get(url), new ResponseBodyListener() {
                @Override
                public void onHead(ClientResponse h, ReadValve v) {
                    valve[0] = v;
                }

                @Override
                public void onData(ByteBuffer data) {
                    valve[0].pause(); // and never resumed: the body is complete anyway
                }
            }).get(20, TimeUnit.SECONDS);
            assertEquals(200, head.status());
            assertEquals("0123456789", http.get(url).text(), "the same connection answers the next call");
            valve[0].resume(); // a stale valve does nothing
            valve[0].pause();
            assertEquals("0123456789", http.get(url).text());
            assertEquals(1, server.metrics().accepted);
        }
    }

    @Test
    void aProducerBreakingItsLengthOrFailingFailsTheCallWithPhaseWrite() throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1)
                .post("/len", (req, res) -> res.text(String.valueOf(req.bodyBytes().length))).start();
             HttpClient http = HttpClient.builder().build()) {
            String url = "http://127.0.0.1:" + server.port() + "/len";
            ClientException more = assertThrows(ClientException.class, () -> http.execute(ClientRequest.builder("POST", url)
                    .body(10, new PatternProducer(11, null)).build()));
            assertEquals(ClientException.Phase.WRITE, more.phase());
            assertTrue(more.getMessage().contains("more than the 10 bytes"), more.getMessage());
            ClientException fewer = assertThrows(ClientException.class, () -> http.execute(ClientRequest.builder("POST", url)
                    .body(10, new PatternProducer(9, null)).build()));
            assertTrue(fewer.getMessage().contains("only 9 of the 10 bytes"), fewer.getMessage());
            ClientException threw = assertThrows(ClientException.class, () -> http.execute(ClientRequest.builder("POST", url)
                    .body(-1, dst -> {
                        throw new java.io.IOException("disk gone");
                    }).build()));
            assertEquals(ClientException.Phase.WRITE, threw.phase());
            assertTrue(threw.getCause().getMessage().contains("disk gone"), String.valueOf(threw.getCause()));
            assertEquals("5", http.execute(ClientRequest.builder("POST", url).body("hello").build()).text(), "the client goes on");
        }
    }

    @Test
    void badStreamedResponsesFailWithTheirPhaseAndAReadUntilCloseBodyCompletes() throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            String head = c.readRequest();
            if (head.startsWith("GET /badchunk ")) {
                c.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz\r\n");
            } else if (head.startsWith("GET /short ")) {
                c.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
                c.socket.close();
            } else if (head.startsWith("GET /close ")) {
                c.write("HTTP/1.1 200 OK\r\n\r\nuntil the end");
                c.socket.close();
            } else if (head.startsWith("GET /throw ")) {
                c.write("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc");
            }
        }); HttpClient http = HttpClient.builder().build()) {
            StringBuilder got = new StringBuilder();
            ResponseBodyListener text = data -> {
                while (data.hasRemaining()) {
                    got.append((char) data.get());
                }
            };
            ExecutionException bad = assertThrows(ExecutionException.class,
                    () -> http.send(ClientRequest.get(server.url("/badchunk")), text).get(20, TimeUnit.SECONDS));
            assertEquals(ClientException.Phase.RESPONSE, ((ClientException) bad.getCause()).phase());
            assertTrue(got.toString().equals("") || got.toString().equals("hello"), got.toString()); // never past the bad chunk
            got.setLength(0);
            ExecutionException cut = assertThrows(ExecutionException.class,
                    () -> http.send(ClientRequest.get(server.url("/short")), text).get(20, TimeUnit.SECONDS));
            assertEquals(ClientException.Phase.CLOSED, ((ClientException) cut.getCause()).phase());
            got.setLength(0);
            assertEquals(200, http.send(ClientRequest.get(server.url("/close")), text).get(20, TimeUnit.SECONDS).status());
            assertEquals("until the end", got.toString());
            ExecutionException threw = assertThrows(ExecutionException.class, () -> http.send(ClientRequest.get(server.url("/throw")),
                    data -> {
                        throw new IllegalStateException("listener bug");
                    }).get(20, TimeUnit.SECONDS));
            assertEquals(ClientException.Phase.RESPONSE, ((ClientException) threw.getCause()).phase());
            assertTrue(threw.getCause().getMessage().contains("listener bug"), threw.getCause().getMessage());
        }
    }

    @Test
    void aStreamedBodyIsSentOnceNeverRetriedNorRedirectedWithIt() throws Exception {
        try (ScriptedServer server = new ScriptedServer((c, n) -> {
            String head = c.readRequest();
            if (head.startsWith("PUT /moved ")) {
                c.write("HTTP/1.1 307 Temporary Redirect\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n");
                return;
            }
            c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
            if (c.readRequest() != null) {
                c.socket.close(); // a keep-alive closed under the next request, unanswered
            }
        }); HttpClient http = HttpClient.builder().followRedirects(3).build()) {
            assertEquals("ok", http.get(server.url("/first")).text());
            ClientException lost = assertThrows(ClientException.class, () -> http.execute(ClientRequest.builder("PUT", server.url("/x"))
                    .body(4, new PatternProducer(4, null)).build()));
            assertEquals(ClientException.Phase.CLOSED, lost.phase(), "a PUT is idempotent, but its streamed body cannot be sent again");
            assertEquals(307, http.execute(ClientRequest.builder("PUT", server.url("/moved"))
                    .body(4, new PatternProducer(4, null)).build()).status());
        }
        try (HttpClient http = HttpClient.builder().build(); PipelineClient pipe = PipelineClient.on(http).build()) {
            assertThrows(IllegalArgumentException.class, () -> pipe.send(ClientRequest.builder("POST", "http://127.0.0.1:1/")
                    .body(-1, dst -> false).build()));
            assertThrows(IllegalArgumentException.class, () -> http.send(ClientRequest.get("http://127.0.0.1:1/"), null));
            assertThrows(IllegalArgumentException.class, () -> ClientRequest.builder("POST", "http://h/").body(-2, dst -> false));
        }
    }

    @Test
    void theDeadlineStillHoldsWhileAListenerKeepsReadingPaused() throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).get("/big", patternBody(10_000_000)).start();
             HttpClient http = HttpClient.builder().totalTimeout(Duration.ofMillis(300)).build()) {
            CompletableFuture<ClientResponse> f = http.send(ClientRequest.get("http://127.0.0.1:" + server.port() + "/big"),
                    new ResponseBodyListener() {
                        @Override
                        public void onHead(ClientResponse head, ReadValve valve) {
                            valve.pause(); // and never resumed
                        }

                        @Override
                        public void onData(ByteBuffer data) {
                        }
                    });
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(20, TimeUnit.SECONDS));
            assertEquals(ClientException.Phase.TOTAL, ((ClientException) e.getCause()).phase());
        }
    }
}
