package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.http1.Status;
import dev.peregrine.testing.Corpus;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Every rejection over a socket: the status, {@code Connection: close}, the server closing, and
 * nothing sent after the bad request acted on (a valid request pipelined behind it gets no answer).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class RejectionTest extends ServerTestBase {
    private static final String NEXT = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n";

    RejectionTest(ServerFactory factory) {
        super(factory);
    }

    /** Sends {@code bad} then a valid request in one write; expects exactly one answer, {@code status}, then EOF. */
    private void assertRejected(Server s, byte[] bad, int status, String what) throws IOException {
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.write(bad);
        req.write(RawClient.bytes(NEXT));
        List<RawResponse> answers = RawResponse.readAll(sendAndReadToEof(s, req.toByteArray()));
        assertEquals(1, answers.size(), () -> what + ": " + answers);
        RawResponse r = answers.get(0);
        assertEquals(status, r.status, what);
        assertEquals("close", r.header("Connection"), what);
        assertEquals(status + " " + Status.reason(status) + "\n", r.text(), what);
    }

    @Test
    void everyInvalidRequestOfTheCorpus() throws IOException {
        for (Corpus.Entry e : Corpus.invalid()) {
            assertRejected(server, e.bytes, e.status(), e.file);
        }
        assertEquals(Corpus.invalid().size(), server.metrics().rejected);
    }

    @Test
    void everyValidRequestOfTheCorpusGetsItsAnswer() throws IOException {
        for (Corpus.Entry e : Corpus.valid()) {
            try (Socket s = connect()) {
                s.getOutputStream().write(e.bytes);
                RawResponse r = RawResponse.read(s.getInputStream(), "HEAD".equals(e.method()));
                assertEquals(e.status(), r.status, e.file);
            }
        }
        assertEquals(0, server.metrics().rejected);
    }

    @Test
    void limits() throws IOException {
        assertRejected(server, RawClient.bytes("GET /" + "a".repeat(9000) + " HTTP/1.1\r\nHost: x\r\n\r\n"), 414, "long request line");
        assertRejected(server, RawClient.bytes("GET / HTTP/1.1\r\nHost: x\r\n" + ("X-Big: " + "b".repeat(1000) + "\r\n").repeat(17) + "\r\n"), 431, "big head");
        assertRejected(server, RawClient.bytes("GET / HTTP/1.1\r\nHost: x\r\n" + "X: y\r\n".repeat(100) + "\r\n"), 431, "101 fields");
        assertRejected(server, RawClient.bytes("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + (9 << 20) + "\r\n\r\n"), 413, "declared body over 8 MiB");
    }

    @Test
    void aChunkedBodyOverTheLimitIs413() throws IOException {
        try (Server small = factory.start(b -> b.maxBodySize(1000))) {
            String chunk = Integer.toHexString(600) + "\r\n" + "c".repeat(600) + "\r\n";
            assertRejected(small, RawClient.bytes("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk + chunk + "0\r\n\r\n"), 413, "chunked body over 1000 bytes");
            assertRejected(small, RawClient.bytes("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n"), 413, "declared 1001 bytes");
            awaitNoLentBuffers(small);
        }
    }

    @Test
    void aBadRequestAfterAGoodOneInThePipeline() throws IOException {
        byte[] all = sendAndReadToEof(server, RawClient.bytes(NEXT + "GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n" + NEXT));
        List<RawResponse> answers = RawResponse.readAll(all);
        assertEquals(2, answers.size(), answers::toString);
        assertEquals(200, answers.get(0).status);
        assertNull(answers.get(0).header("Connection"));
        assertEquals(400, answers.get(1).status);
        assertEquals("close", answers.get(1).header("Connection"));
    }

    @Test
    void aBadRequestDribbledOneBytePerWrite() throws IOException {
        for (String bad : new String[] {"GET / HTTP/2.0\r\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n",
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX"}) {
            try (Socket s = connect()) {
                OutputStream out = s.getOutputStream();
                for (byte b : RawClient.bytes(bad)) {
                    out.write(b);
                    out.flush();
                }
                List<RawResponse> answers = RawResponse.readAll(s.getInputStream().readAllBytes());
                assertEquals(1, answers.size());
                assertEquals(bad.contains("2.0") ? 505 : 400, answers.get(0).status);
            }
        }
    }

    @Test
    void limitsFollowTheirSettings() throws IOException {
        try (Server small = factory.start(b -> b.maxRequestLineLength(100).maxHeadSize(512).maxHeaderCount(5))) {
            String line100 = "GET /" + "a".repeat(100 - 14) + " HTTP/1.1";
            assertEquals(100, line100.length());
            try (Socket s = RawClient.connect(small.port())) {
                s.getOutputStream().write(RawClient.bytes(line100 + "\r\nHost: x\r\n" + "X: y\r\n".repeat(4) + "\r\n"));
                assertEquals(404, RawResponse.read(s.getInputStream()).status, "at every limit exactly: accepted");
            }
            assertRejected(small, RawClient.bytes("GET /a" + line100.substring(5) + "\r\nHost: x\r\n\r\n"), 414, "101-byte request line");
            assertRejected(small, RawClient.bytes("GET / HTTP/1.1\r\nHost: x\r\nX: " + "v".repeat(500) + "\r\n\r\n"), 431, "head over 512 bytes");
            assertRejected(small, RawClient.bytes("GET / HTTP/1.1\r\nHost: x\r\n" + "X: y\r\n".repeat(5) + "\r\n"), 431, "6 fields");
            awaitNoLentBuffers(small);
        }
    }
}
