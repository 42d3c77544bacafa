package dev.peregrine.offloop;

import dev.peregrine.BodyListener;
import dev.peregrine.Completion;
import dev.peregrine.e2e.BodyDigest;
import dev.peregrine.Handlers;
import dev.peregrine.RequestBodyException;
import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/1.1 chunked request bodies (no length) streamed to blocking ({@code bodyStream()},
 * {@code bodyBytes()}) and {@code Handlers.streaming} routes: the decoded chunk data only, in order,
 * whatever the split of the input; pieces reach the handler before the body ends; a client faster than
 * its handler is held (bounded pool memory) while a bystander is answered; past
 * {@code maxStreamedBodySize} 413 and close; broken framing mid-body 400 and close, the handler's
 * stream failing with {@link RequestBodyException}, nothing counted as a handler error; a request
 * pipelined behind the body; the JDK HttpClient ({@code ofInputStream}) and curl ({@code -T -}).
 * Every transport.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class ChunkedStreamingBodyTest {
    @Parameter
    String transport;

    /** What a test lets its handlers do, and what they saw. */
    private static final class Gate {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch firstPiece = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Throwable> failure = new CompletableFuture<>();
        volatile boolean hold;
    }

    private Server start(Gate gate, long maxStreamed) {
        return Server.builder().transport(transport).host("127.0.0.1").port(0).threads(1)
                .maxBodySize(64 * 1024).maxStreamedBodySize(maxStreamed).asyncTimeout(java.time.Duration.ofSeconds(30))
                .get("/fast", (req, res) -> res.text("fast"))
                .post("/listen", Handlers.streaming((req, res) -> {
                    boolean streamed = req.bodyStreamed();
                    Completion done = res.async();
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    req.onBody(new BodyListener() {
                        @Override
                        public void onData(ByteBuffer data) {
                            byte[] b = new byte[data.remaining()];
                            data.get(b);
                            got.write(b, 0, b.length);
                            gate.firstPiece.countDown();
                        }

                        @Override
                        public void onEnd() {
                            done.response().text((streamed ? "streamed " : "whole ") + got.toString(StandardCharsets.ISO_8859_1));
                            done.complete();
                        }
                    });
                }))
                .post("/echo", Handlers.blocking((req, res) -> {
                    gate.entered.countDown();
                    boolean streamed = req.bodyStreamed();
                    InputStream in = req.bodyStream();
                    ByteArrayOutputStream got = new ByteArrayOutputStream();
                    byte[] buf = new byte[8192];
                    try {
                        for (int n; (n = in.read(buf)) >= 0; ) {
                            got.write(buf, 0, n);
                            gate.firstPiece.countDown();
                        }
                    } catch (IOException e) {
                        gate.failure.complete(e);
                        throw e;
                    }
                    res.text((streamed ? "streamed " : "whole ") + got.toString(StandardCharsets.ISO_8859_1));
                }))
                .post("/whole", Handlers.blocking((req, res) -> res.text("whole " + new String(req.bodyBytes(), StandardCharsets.ISO_8859_1))))
                .post("/sha", Handlers.blocking((req, res) -> {
                    gate.entered.countDown();
                    if (gate.hold) {
                        assertTrue(gate.release.await(30, TimeUnit.SECONDS));
                    }
                    res.text(BodyDigest.of(req.bodyStream()) + " " + req.bodyStreamed());
                }))
                .post("/listen-sha", Handlers.streaming((req, res) -> {
                    boolean streamed = req.bodyStreamed();
                    Completion done = res.async();
                    req.onBody(BodyDigest.listener(digest -> {
                        done.response().text(digest + " " + streamed);
                        done.complete();
                    }));
                }))
                .start();
    }

    private static String body(RawResponse r) {
        return new String(r.body, StandardCharsets.ISO_8859_1);
    }

    /** Chunked framing of {@code body} in pieces of {@code piece} bytes, with a last chunk and no trailers. */
    private static byte[] chunked(byte[] body, int piece) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int at = 0; at < body.length; at += piece) {
            int n = Math.min(piece, body.length - at);
            out.writeBytes((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.write(body, at, n);
            out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        return out.toByteArray();
    }

    @Test
    void everySplitOfTheFramingGivesTheSameBytesToAListenerAndABlockingStream() throws Exception {
        String want = "hello, a chunked body in order";
        // size lines with extensions (token and quoted values, BWS), an upper-case size, trailers
        String framed = "5;a=1 ;q=\"x; y\"\r\nhello\r\n"
                + "A\r\n, a chunke\r\n"
                + "f;ext\r\nd body in order\r\n"
                + "0\r\nX-Sum: none\r\nX-More: 1\r\n\r\n";
        byte[] wire = framed.getBytes(StandardCharsets.ISO_8859_1);
        try (Server server = start(new Gate(), 1 << 20); RawClient c = new RawClient(server.port())) {
            c.socket().setTcpNoDelay(true);
            for (String path : new String[] {"/listen", "/echo", "/whole"}) {
                for (int split = 0; split <= wire.length; split++) {
                    c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");
                    c.send(java.util.Arrays.copyOfRange(wire, 0, split));
                    // the rest, with the next request behind it in the same write
                    byte[] rest = java.util.Arrays.copyOfRange(wire, split, wire.length);
                    byte[] next = "GET /fast HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
                    byte[] both = java.util.Arrays.copyOf(rest, rest.length + next.length);
                    System.arraycopy(next, 0, both, rest.length, next.length);
                    c.send(both);
                    RawResponse r = c.read();
                    assertEquals(200, r.status, path + " split at " + split + ": " + r);
                    assertTrue(body(r).endsWith(" " + want) || body(r).equals("whole " + want), path + " split at " + split + ": " + body(r));
                    assertEquals(want, body(r).substring(body(r).indexOf(' ') + 1), path + " split at " + split);
                    assertEquals("fast", body(c.read()), path + " split at " + split + ": the request behind it");
                }
            }
            assertEquals(0, server.metrics().handlerErrors);
        }
    }

    @Test
    void piecesReachTheHandlerBeforeTheBodyEnds() throws Exception {
        for (String path : new String[] {"/listen", "/echo"}) {
            Gate gate = new Gate();
            try (Server server = start(gate, 1 << 20); RawClient c = new RawClient(server.port())) {
                c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
                assertTrue(gate.firstPiece.await(20, TimeUnit.SECONDS), path + ": the first chunk did not reach the handler before the body ended");
                c.send("6\r\n world\r\n0\r\n\r\nGET /fast HTTP/1.1\r\nHost: a\r\n\r\n");
                assertEquals("streamed hello world", body(c.read()), path);
                assertEquals("fast", body(c.read()));
            }
        }
    }

    @Test
    void aClientFasterThanItsHandlerIsHeldWhileABystanderIsAnswered() throws Exception {
        Gate gate = new Gate();
        gate.hold = true;
        long size = 64L << 20;
        byte[] block = new byte[60_000];
        new Random(9112).nextBytes(block);
        byte[] framedBlock = chunked(block, block.length);
        framedBlock = java.util.Arrays.copyOf(framedBlock, framedBlock.length - 5); // without the last chunk
        try (Server server = start(gate, 1L << 30); RawClient c = new RawClient(server.port())) {
            long lentBefore = server.metrics().lentBytes;
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            AtomicLong sent = new AtomicLong();
            c.send("POST /sha HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");
            assertTrue(gate.entered.await(20, TimeUnit.SECONDS));
            long blocks = size / block.length;
            for (long i = 0; i < blocks; i++) {
                sha.update(block);
            }
            byte[] toSend = framedBlock;
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    OutputStream out = c.output();
                    for (long i = 0; i < blocks; i++) {
                        out.write(toSend);
                        sent.addAndGet(block.length);
                    }
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    out.flush();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Await.until("the client sent its first MiB", () -> sent.get() > (1 << 20));
            try (RawClient other = new RawClient(server.port())) {
                long t0 = System.nanoTime();
                other.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
                assertEquals("fast", body(other.read()));
                assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(300), "a bystander connection waited");
            }
            long lent = server.metrics().lentBytes - lentBefore;
            assertTrue(lent < 1 << 20, "pool memory lent while the handler does not read: " + lent);
            assertFalse(writer.isDone(), "the whole body was taken while the handler read nothing");
            gate.release.countDown();
            String want = blocks * block.length + " " + HexFormat.of().formatHex(sha.digest()) + " true";
            assertEquals(want, body(c.read()));
            writer.get(30, TimeUnit.SECONDS);
            Await.until("the pool took back what it lent: " + server.metrics(), () -> server.metrics().lentBytes <= lentBefore);
        }
    }

    @Test
    void pastMaxStreamedBodySizeIs413AndTheConnectionCloses() throws Exception {
        byte[] big = new byte[150_000];
        for (String path : new String[] {"/echo", "/listen"}) {
            Gate gate = new Gate();
            try (Server server = start(gate, 100_000); RawClient c = new RawClient(server.port())) {
                // pieces under the limit, then the running total passes it
                c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n");
                c.send(java.util.Arrays.copyOf(chunked(big, 10_000), 15 * (10_000 + 8)));
                RawResponse r = c.read();
                assertEquals(413, r.status, path + ": " + r);
                assertEquals("close", r.header("Connection"), path);
                assertTrue(c.closedByServer(), path + ": the connection closes after the 413");
                if (path.equals("/echo")) {
                    Throwable t = gate.failure.get(20, TimeUnit.SECONDS);
                    assertInstanceOf(RequestBodyException.class, t);
                    assertEquals(413, ((RequestBodyException) t).status());
                }
                assertEquals(0, server.metrics().handlerErrors, "counted as a handler error");
            }
            try (Server server = start(new Gate(), 100_000); RawClient c = new RawClient(server.port())) {
                // one chunk-size line announcing more than the limit: refused there
                c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
                c.send("186A1\r\nabc");
                RawResponse r = c.read();
                assertEquals(413, r.status, path + ": " + r);
                assertTrue(c.closedByServer(), path);
            }
        }
    }

    @Test
    void brokenFramingMidBodyIs400TheHandlersStreamFailsAndNothingIsLoggedAsAHandlerError() throws Exception {
        String[] broken = {"zz\r\n", "5\r\nhelloXX", "5;=x\r\nhello\r\n", "0\r\nBad Trailer\r\n\r\n"};
        for (String path : new String[] {"/echo", "/listen"}) {
            for (String bad : broken) {
                Gate gate = new Gate();
                try (Server server = start(gate, 1 << 20); RawClient c = new RawClient(server.port())) {
                    c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
                    assertTrue(gate.firstPiece.await(20, TimeUnit.SECONDS), path);
                    c.send(bad);
                    RawResponse r = c.read();
                    assertEquals(400, r.status, path + " " + bad + ": " + r);
                    assertEquals("close", r.header("Connection"));
                    assertTrue(c.closedByServer(), path + " " + bad);
                    if (path.equals("/echo")) {
                        Throwable t = gate.failure.get(20, TimeUnit.SECONDS);
                        assertInstanceOf(RequestBodyException.class, t, path + " " + bad);
                        assertEquals(400, ((RequestBodyException) t).status());
                    }
                    assertEquals(0, server.metrics().handlerErrors, path + " " + bad);
                }
            }
        }
    }

    @Test
    void theClientLeavingMidBodyFailsTheHandlersStream() throws Exception {
        Gate gate = new Gate();
        try (Server server = start(gate, 1 << 20)) {
            try (RawClient c = new RawClient(server.port())) {
                c.send("POST /echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
                assertTrue(gate.firstPiece.await(20, TimeUnit.SECONDS));
                c.reset();
            }
            assertInstanceOf(IOException.class, gate.failure.get(20, TimeUnit.SECONDS));
            try (RawClient c = new RawClient(server.port())) {
                c.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n");
                assertEquals("fast", body(c.read()));
            }
            assertEquals(0, server.metrics().handlerErrors);
        }
    }

    @Test
    void theJdkClientAndCurlUploadWithoutALength(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        byte[] data = new byte[3 << 20];
        new Random(7230).nextBytes(data);
        String want = data.length + " " + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data)) + " true";
        Path file = dir.resolve("upload.bin");
        Files.write(file, data);
        try (Server server = start(new Gate(), 64L << 20)) {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (String path : new String[] {"/sha", "/listen-sha"}) {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(data))).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertEquals(200, r.statusCode(), r.body());
                assertEquals(want, r.body(), path);
                // curl -T - reads stdin and sends it chunked
                Process p = new ProcessBuilder("curl", "-s", "-S", "-T", "-", "-X", "POST", "-H", "Expect:",
                        "http://127.0.0.1:" + server.port() + path).redirectInput(file.toFile()).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(p.waitFor(60, TimeUnit.SECONDS));
                assertEquals(want, out, path + " with curl");
            }
        }
    }
}
