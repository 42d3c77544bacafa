package dev.peregrine.e2e;

import dev.peregrine.Handlers;
import dev.peregrine.Request;
import dev.peregrine.Server;
import dev.peregrine.Trailers;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * HTTP/1.1 chunked request trailers (RFC 9112 §7.1.2) reach handlers through {@code req.trailers()},
 * over a raw socket (neither curl's command line nor the JDK HttpClient sends request trailers): an
 * inline handler at dispatch, a blocking handler once its stream returned -1 (or {@code bodyBytes()}
 * read it whole), a streaming listener in {@code onTrailers} before {@code onEnd}; at every split of
 * the framing, with the body in memory or streamed; never among the header fields; none for the
 * request behind it; past {@code maxHeadSize} 431 as before. Every transport.
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.testing.Transports#names")
class RequestTrailersTest {
    @Parameter
    String transport;

    private static final String BODY = "hello, a chunked body in order";
    private static final String FRAMED = "5;a=1\r\nhello\r\n"
            + "A\r\n, a chunke\r\n"
            + "f\r\nd body in order\r\n"
            + "0\r\nChecksum: \t abc \r\nX-Two: 1\r\nx-two: 2\r\n\r\n";
    private static final String WANT = BODY + " | Trailers[Checksum: abc, X-Two: 1, x-two: 2] | header null";

    private Server start(int maxHeadSize) {
        Server.Builder b = Server.builder().transport(transport).host("127.0.0.1").port(0).threads(1)
                .maxBodySize(64 * 1024).maxHeadSize(maxHeadSize).asyncTimeout(java.time.Duration.ofSeconds(30))
                .get("/fast", (req, res) -> res.text("fast " + req.trailers().size()))
                .post("/whole", Handlers.blocking((req, res) ->
                        res.text(TrailerRoutes.seen(new String(req.bodyBytes(), StandardCharsets.ISO_8859_1), req, "Checksum"))));
        return TrailerRoutes.add(b, "Checksum").start();
    }

    private static String body(RawResponse r) {
        return new String(r.body, StandardCharsets.ISO_8859_1);
    }

    @Test
    void everySplitOfTheFramingBringsTheTrailersToEveryKindOfHandler() throws Exception {
        byte[] wire = FRAMED.getBytes(StandardCharsets.ISO_8859_1);
        try (Server server = start(16 * 1024); RawClient c = new RawClient(server.port())) {
            c.socket().setTcpNoDelay(true);
            for (String path : new String[] {"/inline", "/blocking", "/whole", "/listen"}) {
                for (int split = 0; split <= wire.length; split++) {
                    c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nTrailer: Checksum, X-Two\r\nTransfer-Encoding: chunked\r\n\r\n");
                    c.send(Arrays.copyOfRange(wire, 0, split));
                    // the rest, with a request behind it in the same write: it has no trailers of its own
                    byte[] rest = Arrays.copyOfRange(wire, split, wire.length);
                    byte[] next = "GET /fast HTTP/1.1\r\nHost: a\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
                    byte[] both = Arrays.copyOf(rest, rest.length + next.length);
                    System.arraycopy(next, 0, both, rest.length, next.length);
                    c.send(both);
                    RawResponse r = c.read();
                    assertEquals(200, r.status, path + " split at " + split + ": " + r);
                    assertEquals(WANT, body(r), path + " split at " + split);
                    assertEquals("fast 0", body(c.read()), path + " split at " + split + ": the request behind it");
                }
            }
            assertEquals(0, server.metrics().handlerErrors);
        }
    }

    @Test
    void aStreamedBodySeesNoTrailersBeforeItsEnd() throws Exception {
        java.util.concurrent.CountDownLatch looked = new java.util.concurrent.CountDownLatch(1);
        try (Server server = Server.builder().transport(transport).host("127.0.0.1").port(0).threads(1)
                .post("/early", Handlers.blocking((req, res) -> {
                    InputStream in = req.bodyStream();
                    int first = in.read(); // the first chunk came alone: the rest, trailers included, is still to come
                    String before = req.trailers().toString();
                    looked.countDown();
                    while (in.read() >= 0) {
                        // to the end
                    }
                    res.text((char) first + " " + before + " then " + req.trailers());
                }))
                .start(); RawClient c = new RawClient(server.port())) {
            c.send("POST /early HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n");
            assertTrue(looked.await(20, java.util.concurrent.TimeUnit.SECONDS));
            c.send("1\r\ny\r\n0\r\nT: v\r\n\r\n");
            assertEquals("x Trailers[] then Trailers[T: v]", body(c.read()));
        }
    }

    @Test
    void aBodyWithoutTrailersHasNone() throws Exception {
        try (Server server = start(16 * 1024); RawClient c = new RawClient(server.port())) {
            for (String path : new String[] {"/inline", "/blocking", "/listen"}) {
                c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");
                assertEquals("abc | Trailers[] | header null", body(c.read()), path);
                c.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc");
                assertEquals("abc | Trailers[] | header null", body(c.read()), path);
            }
        }
    }

    @Test
    void trailersPastMaxHeadSizeAreRefusedAsBefore() throws Exception {
        String big = "X-Big: " + "b".repeat(2000) + "\r\n";
        try (Server server = start(1024); RawClient c = new RawClient(server.port())) {
            c.send("POST /inline HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n" + big + "\r\n");
            assertEquals(431, c.read().status);
        }
        try (Server server = start(1024); RawClient c = new RawClient(server.port())) {
            // a bad trailer line: 400, as before
            c.send("POST /inline HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nno colon\r\n\r\n");
            assertEquals(400, c.read().status);
        }
    }

    @Test
    void aCopyKeepsTheTrailers() throws Exception {
        Request[] kept = new Request[1];
        try (Server server = Server.builder().transport(transport).host("127.0.0.1").port(0).threads(1)
                .post("/keep", (req, res) -> {
                    kept[0] = req.copy();
                    res.text("kept");
                })
                .start(); RawClient c = new RawClient(server.port())) {
            c.send("POST /keep HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nT: v\r\n\r\n");
            assertEquals("kept", body(c.read()));
            c.send("GET /keep HTTP/1.1\r\nHost: a\r\n\r\n"); // another request through the loop's view
            c.read();
            assertEquals("v", kept[0].trailers().get("t"));
            assertTrue(kept[0].header("T") == null);
        }
    }
}
