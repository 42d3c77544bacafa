package dev.peregrine.web;

import dev.peregrine.Metrics;
import dev.peregrine.Server;
import dev.peregrine.examples.WebRoutes;
import dev.peregrine.form.FormCursor;
import dev.peregrine.form.MultipartLimits;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Hostile clients against forms (one loop): multipart uploads that stall part way through their
 * body, too many parts, bad boundaries, and an urlencoded body of twenty thousand pairs (past the cursor's limit). Held to the
 * memory the pool lends, a bystander's latency on the same loop, each status, and no spooled file left.
 */
class FormsHostileTest {
    @TempDir
    Path dir;
    private Path spool;
    private Server server;
    private final List<RawClient> attackers = new ArrayList<>();

    @AfterEach
    void stop() throws IOException {
        for (RawClient a : attackers) {
            a.close();
        }
        if (server != null) {
            Await.until("every connection closed", () -> server.metrics().open == 0);
            Await.until("every pooled buffer back", () -> server.metrics().lentBuffers == 0);
            server.close();
            Await.until("no spooled file left", () -> count(spool) == 0);
        }
    }

    private static long count(Path d) {
        try (Stream<Path> s = Files.list(d)) {
            return s.count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void start(String transport) throws IOException {
        spool = Files.createDirectories(dir.resolve("spool"));
        MultipartLimits limits = MultipartLimits.DEFAULTS.withSpoolDir(spool).withSpoolThreshold(16 * 1024).withMaxParts(100);
        server = Server.builder().host("127.0.0.1").port(0).transport(transport).threads(1).streamBodyThreshold(64 * 1024)
                .get("/plaintext", (req, res) -> res.text("Hello, World!"))
                .post("/upload", WebRoutes.upload(limits))
                .post("/pairs", (req, res) -> {
                    int n = 0;
                    FormCursor c = req.form().pairs();
                    while (c.next()) {
                        n++;
                    }
                    res.text(String.valueOf(n));
                })
                .start();
    }

    private long bystander() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            long start = System.nanoTime();
            RawResponse r = c.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read();
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(200, r.status);
            return millis;
        }
    }

    private static byte[] post(String path, String type, byte[] body) {
        byte[] head = RawClient.bytes("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: " + type
                + "\r\nContent-Length: " + body.length + "\r\n\r\n");
        byte[] r = new byte[head.length + body.length];
        System.arraycopy(head, 0, r, 0, head.length);
        System.arraycopy(body, 0, r, head.length, body.length);
        return r;
    }

    private int status(byte[] request) throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            return c.send(request).read().status;
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void stalledUploadsHoldBoundedMemoryAndStallNobody(String transport) throws IOException {
        start(transport);
        byte[] part = ("--B\r\nContent-Disposition: form-data; name=f; filename=a.bin\r\n\r\n" + "x".repeat(200_000))
                .getBytes(StandardCharsets.US_ASCII);
        String head = "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: "
                + (4 << 20) + "\r\n\r\n";
        for (int i = 0; i < 20; i++) { // 200 KB of a 4 MiB upload, then nothing
            RawClient a = new RawClient(server.port());
            attackers.add(a);
            a.send(head);
            a.send(part);
        }
        long during = bystander();
        assertTrue(during < 300, "a bystander among stalled uploads waited " + during + " ms");
        Await.until("every upload spooling", () -> count(spool) == 20);
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            best = Math.min(best, bystander());
        }
        Metrics m = server.metrics();
        assertTrue(best < 300, "bystander took " + best + " ms");
        assertTrue(m.lentBytes <= 64L << 20, m.lentBytes + " bytes lent for 20 stalled uploads: " + m);
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void abusiveFormsGetTheirStatus(String transport) throws IOException {
        start(transport);
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= 100; i++) {
            many.append("--B\r\nContent-Disposition: form-data; name=p").append(i).append("\r\n\r\nv\r\n");
        }
        many.append("--B--\r\n");
        byte[] tooMany = many.toString().getBytes(StandardCharsets.US_ASCII);
        assertEquals(413, status(post("/upload", "multipart/form-data; boundary=B", tooMany)), "more than maxParts");
        assertEquals(400, status(post("/upload", "multipart/form-data; boundary=C", tooMany)), "wrong boundary");
        assertEquals(400, status(post("/upload", "multipart/form-data", tooMany)), "no boundary");
        assertEquals(415, status(post("/upload", "text/plain", tooMany)), "neither form type");
        byte[] flood = "a=&".repeat(20_000).getBytes(StandardCharsets.US_ASCII);
        assertEquals(413, status(post("/pairs", "application/x-www-form-urlencoded", flood)),
                "more pairs than FormCursor.DEFAULT_MAX_PAIRS: 413, not a loop over all of them");
        try (RawClient c = new RawClient(server.port())) {
            RawResponse r = c.send(post("/pairs", "application/x-www-form-urlencoded",
                    "a=&".repeat(1000).getBytes(StandardCharsets.US_ASCII))).read();
            assertEquals(200, r.status);
            assertEquals("1000", new String(r.body, StandardCharsets.US_ASCII));
        }
        assertTrue(bystander() < 300);
        assertEquals(0, count(spool));
    }
}
