package dev.peregrine.e2e;

import dev.peregrine.testing.Await;
import dev.peregrine.testing.Corpus;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Requests that must succeed: keep-alive, pipelining, dribbling, chunked bodies, 100-continue, big bodies. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class ExchangeTest extends ServerTestBase {
    private static final String HOST = "Host: localhost\r\n";

    ExchangeTest(ServerFactory factory) {
        super(factory);
    }

    @Test
    void keepAliveWithTheJdkClient() throws Exception {
        for (int i = 0; i < 20; i++) {
            HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url(i % 2 == 0 ? "/plaintext" : "/json"))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals(i % 2 == 0 ? "Hello, World!" : "{\"message\":\"Hello, World!\"}", r.body());
            assertEquals(i % 2 == 0 ? "text/plain" : "application/json", r.headers().firstValue("Content-Type").orElseThrow());
            assertEquals("Peregrine", r.headers().firstValue("Server").orElseThrow());
            assertTrue(r.headers().firstValue("Date").orElseThrow().endsWith(" GMT"));
        }
        assertEquals(1, server.metrics().accepted, "one connection kept alive for all requests");
    }

    @Test
    void keepAliveOnARawSocket() throws Exception {
        try (Socket s = connect()) {
            for (int i = 0; i < 10; i++) {
                s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.1\r\n" + HOST + "\r\n"));
                RawResponse r = RawResponse.read(s.getInputStream());
                assertEquals(200, r.status);
                assertEquals("Hello, World!", r.text());
                assertNull(r.header("Connection"));
            }
        }
    }

    @Test
    void twoHundredFiftySixPipelinedRequestsInOneWriteAreAnsweredInOrder() throws Exception {
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 256; i++) {
            batch.append("GET /users/").append(i).append("/posts/p").append(i).append(" HTTP/1.1\r\n").append(HOST).append("\r\n");
        }
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(batch.toString()));
            InputStream in = s.getInputStream();
            for (int i = 0; i < 256; i++) {
                RawResponse r = RawResponse.read(in);
                assertEquals(200, r.status);
                assertEquals("id=" + i + " slug=p" + i, r.text());
            }
        }
    }

    /** GET, POST with a length, POST chunked with extensions and trailers, HEAD, and more, in one pipeline. */
    private static final String MIXED = ""
            + "GET /plaintext HTTP/1.1\r\n" + HOST + "\r\n"
            + "POST /echo HTTP/1.1\r\n" + HOST + "Content-Type: text/x-one\r\nContent-Length: 5\r\n\r\nfirst"
            + "POST /echo HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n6;ext=1\r\nsecond\r\n1\r\n!\r\n0\r\nX-Trailer: t\r\n\r\n"
            + "HEAD /plaintext HTTP/1.1\r\n" + HOST + "\r\n"
            + "GET /json HTTP/1.1\r\n" + HOST + "\r\n"
            + "POST /length HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "HEAD /json HTTP/1.1\r\n" + HOST + "\r\n"
            + "GET /query?name=J%C3%BCrgen&x=a+b&empty HTTP/1.1\r\n" + HOST + "\r\n";

    private static void assertMixedAnswers(InputStream in) throws Exception {
        RawResponse plain = RawResponse.read(in);
        assertEquals("Hello, World!", plain.text());
        RawResponse echo1 = RawResponse.read(in);
        assertEquals("first", echo1.text());
        assertEquals("text/x-one", echo1.header("Content-Type"));
        RawResponse echo2 = RawResponse.read(in);
        assertEquals("second!", echo2.text());
        assertNull(echo2.header("Content-Type"));
        RawResponse head = RawResponse.read(in, true);
        assertEquals(200, head.status);
        assertEquals("13", head.header("Content-Length"));
        assertEquals("{\"message\":\"Hello, World!\"}", RawResponse.read(in).text());
        assertEquals("3", RawResponse.read(in).text());
        assertEquals("27", RawResponse.read(in, true).header("Content-Length"));
        assertEquals("name=J\u00fcrgen x=a b empty= missing=null", RawResponse.read(in).text());
    }

    @Test
    void aPipelineMixingGetPostChunkedAndHead() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(MIXED));
            assertMixedAnswers(s.getInputStream());
            // HEAD responses carried no body: the connection is still in step.
            s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.1\r\n" + HOST + "\r\n"));
            assertEquals("Hello, World!", RawResponse.read(s.getInputStream()).text());
        }
    }

    @Test
    void theSamePipelineOneBytePerWrite() throws Exception {
        try (Socket s = connect()) {
            OutputStream out = s.getOutputStream();
            for (byte b : RawClient.bytes(MIXED)) {
                out.write(b);
                out.flush();
            }
            assertMixedAnswers(s.getInputStream());
        }
    }

    @Test
    void chunkedBodiesWithExtensionsAndTrailers() throws Exception {
        try (Socket s = connect()) {
            for (Corpus.Entry e : Corpus.valid()) {
                if (e.file.contains("chunked")) {
                    s.getOutputStream().write(e.bytes);
                    RawResponse r = RawResponse.read(s.getInputStream());
                    assertEquals(200, r.status, e.file);
                    assertTrue(r.text().startsWith(e.file.contains("uppercase") ? "0123456789" : e.file.contains("te-list") ? "abc" : "Hello, World!"), e.file);
                }
            }
        }
        // The JDK client sends a body of unknown length chunked.
        byte[] body = new byte[300_000];
        new SplittableRandom(7).nextBytes(body);
        HttpResponse<byte[]> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/echo")))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode());
        assertArrayEquals(body, r.body());
    }

    @Test
    void expectContinueGets100ThenTheAnswer() throws Exception {
        try (Socket s = connect()) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write(RawClient.bytes("POST /echo HTTP/1.1\r\n" + HOST + "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n"));
            RawResponse cont = RawResponse.read(in);
            assertEquals(100, cont.status);
            out.write(RawClient.bytes("hello"));
            assertEquals("hello", RawResponse.read(in).text());
            // chunked, and a second time on the same connection: the 100 is sent per request
            out.write(RawClient.bytes("POST /echo HTTP/1.1\r\n" + HOST + "Expect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n"));
            assertEquals(100, RawResponse.read(in).status);
            out.write(RawClient.bytes("3\r\nabc\r\n0\r\n\r\n"));
            assertEquals("abc", RawResponse.read(in).text());
        }
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/echo"))).expectContinue(true)
                .POST(HttpRequest.BodyPublishers.ofString("continued")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals("continued", r.body());
    }

    @Test
    void expectContinueWithATooLargeLengthIs413WithoutTheBody() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("POST /echo HTTP/1.1\r\n" + HOST + "Expect: 100-continue\r\nContent-Length: 104857600\r\n\r\n"));
            byte[] all = s.getInputStream().readAllBytes();
            List<RawResponse> rs = RawResponse.readAll(all);
            assertEquals(1, rs.size(), rs::toString);
            assertEquals(413, rs.get(0).status);
            assertEquals("close", rs.get(0).header("Connection"));
        }
    }

    @Test
    void aFourMiBBodyIsEchoedByteExact() throws Exception {
        byte[] body = new byte[4 << 20];
        new SplittableRandom(4).nextBytes(body);
        HttpResponse<byte[]> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/echo")))
                .header("Content-Type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, r.statusCode());
        assertEquals("application/octet-stream", r.headers().firstValue("Content-Type").orElseThrow());
        assertArrayEquals(body, r.body());
        // chunked (the JDK client's framing for a body of unknown length)
        HttpResponse<String> digest = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/digest")))
                .PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(Integer.toString(Arrays.hashCode(body)), digest.body());
        // and on a raw socket, followed by a pipelined request that must still be answered
        try (Socket s = connect()) {
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            req.write(RawClient.bytes("PUT /digest HTTP/1.1\r\n" + HOST + "Content-Length: " + body.length + "\r\n\r\n"));
            req.write(body);
            req.write(RawClient.bytes("GET /plaintext HTTP/1.1\r\n" + HOST + "\r\n"));
            s.getOutputStream().write(req.toByteArray());
            assertEquals(Integer.toString(Arrays.hashCode(body)), RawResponse.read(s.getInputStream()).text());
            assertEquals("Hello, World!", RawResponse.read(s.getInputStream()).text());
        }
    }

    @Test
    void aLargeResponseToAPipelineArrivesWhole() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes(("GET /big HTTP/1.1\r\n" + HOST + "\r\n").repeat(3) + "GET /plaintext HTTP/1.1\r\n" + HOST + "\r\n"));
            for (int i = 0; i < 3; i++) {
                assertArrayEquals(TestRoutes.BIG, RawResponse.read(s.getInputStream()).body);
            }
            assertEquals("Hello, World!", RawResponse.read(s.getInputStream()).text());
        }
    }

    @Test
    void utf8BodiesAndHeaderLookups() throws Exception {
        HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(URI.create(url("/utf8"))).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertEquals("gr\u00fc\u00df \u20ac", r.body());
        assertEquals("text/plain; charset=utf-8", r.headers().firstValue("Content-Type").orElseThrow());
        try (Socket s = connect()) {
            s.getOutputStream().write(RawClient.bytes("GET /headers HTTP/1.1\r\nhOsT: example\r\nX-TEST: yes\r\n\r\n"));
            assertEquals("host=example x=yes count=2 keepAlive=true version=HTTP/1.1", RawResponse.read(s.getInputStream()).text());
        }
    }

    @Test
    void aClientThatHalfClosesAfterItsRequestsStillGetsEveryResponse() throws Exception {
        // Pending output stays below the read-pause limit, so the server does read the client's FIN
        // while 16 MiB of responses are still queued for it.
        try (dev.peregrine.Server roomy = factory.start(b -> b.maxPendingOutput(64 << 20));
             RawClient c = new RawClient(roomy.port(), 4096)) {
            c.send(("GET /big HTTP/1.1\r\n" + HOST + "\r\n").repeat(8));
            c.halfClose();
            Await.until(() -> roomy.metrics().requests == 8, () -> "requests not all handled: " + roomy.metrics());
            for (int i = 0; i < 8; i++) {
                assertArrayEquals(TestRoutes.BIG, c.read().body, "response " + i);
            }
            assertTrue(c.closedByServer());
        }
    }

    @Test
    void aPipelineCutAtRandomPlacesAcrossWrites() throws Exception {
        byte[] wire = RawClient.bytes(MIXED);
        SplittableRandom rnd = new SplittableRandom(11);
        for (int round = 0; round < 30; round++) {
            try (Socket s = connect()) {
                OutputStream out = s.getOutputStream();
                int at = 0;
                while (at < wire.length) {
                    int n = Math.min(wire.length - at, 1 + rnd.nextInt(round % 2 == 0 ? 8 : 120));
                    out.write(wire, at, n);
                    out.flush();
                    at += n;
                }
                assertMixedAnswers(s.getInputStream());
            }
        }
    }

    @Test
    void readingResumesWhereverThePendingOutputDrains() throws Exception {
        // A tiny pending-output limit pauses reading during every large response; the output often
        // drains while the same batch is still being encoded, and reading must resume then too.
        try (dev.peregrine.Server tight = factory.start(b -> b.maxPendingOutput(16 * 1024)); Socket s = RawClient.connect(tight.port())) {
            InputStream in = s.getInputStream();
            for (int round = 0; round < 6; round++) {
                s.getOutputStream().write(RawClient.bytes(("GET /big HTTP/1.1\r\n" + HOST + "\r\n").repeat(2)));
                assertArrayEquals(TestRoutes.BIG, RawResponse.read(in).body);
                assertArrayEquals(TestRoutes.BIG, RawResponse.read(in).body);
                s.getOutputStream().write(RawClient.bytes("GET /plaintext HTTP/1.1\r\n" + HOST + "\r\n"));
                assertEquals("Hello, World!", RawResponse.read(in).text(), "round " + round);
            }
        }
    }

    @Test
    void aPipelineLargerThanTheReadAndWriteBuffers() throws Exception {
        // 3000 requests (~190 KiB) span several 64 KiB reads; their answers (~400 KiB) several write buffers.
        StringBuilder batch = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            batch.append(i % 3 == 0 ? "GET /users/" + i + "/posts/big HTTP/1.1\r\n" + HOST + "\r\n"
                    : i % 3 == 1 ? "POST /echo HTTP/1.1\r\n" + HOST + "Content-Length: " + Integer.toString(i).length() + "\r\n\r\n" + i
                    : "POST /echo HTTP/1.1\r\n" + HOST + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(Integer.toString(i).length()) + "\r\n" + i + "\r\n0\r\n\r\n");
        }
        try (Socket s = connect()) {
            Thread writer = new Thread(() -> {
                try {
                    s.getOutputStream().write(RawClient.bytes(batch.toString()));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            writer.start();
            InputStream in = new java.io.BufferedInputStream(s.getInputStream());
            for (int i = 0; i < 3000; i++) {
                assertEquals(i % 3 == 0 ? "id=" + i + " slug=big" : Integer.toString(i), RawResponse.read(in).text(), "response " + i);
            }
            writer.join();
        }
    }
}
