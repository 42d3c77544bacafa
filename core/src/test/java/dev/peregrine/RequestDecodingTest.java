package dev.peregrine;

import dev.peregrine.compress.BodyDecodingException;
import dev.peregrine.compress.engine.GzipBodyDecoder;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Opt-in gzip request bodies ({@link RequestDecoding}) through the real server code, and the decoder's cap. */
class RequestDecodingTest {
    private static final long CAP = 1 << 20;
    private static final String TEXT = "a gzip'd upload; ".repeat(2000);

    private static Server.Builder app() {
        Handler echo = (req, res) -> res.text(req.bodyLength() + ":" + req.header("Content-Encoding") + ":" + req.bodyString());
        return Server.builder().streamBodyThreshold(64 * 1024)
                .post("/decoded", RequestDecoding.gzip(CAP, echo))
                .post("/form", RequestDecoding.gzip(CAP, (req, res) -> res.text(req.form().get("b"))))
                .post("/fields", RequestDecoding.gzip(CAP, (req, res) -> {
                    StringBuilder names = new StringBuilder();
                    for (int i = 0; i < req.headers().size(); i++) {
                        names.append(req.headers().name(i)).append(';');
                    }
                    res.text(names + req.bodyString());
                }))
                .post("/raw", (req, res) -> res.text(req.bodyLength() + ":" + req.header("Content-Encoding")))
                .post("/streamed", Execution.BLOCKING, RequestDecoding.gzip(CAP, (req, res) -> {
                    long n = 0;
                    try (InputStream in = req.bodyStream()) {
                        byte[] buf = new byte[8192];
                        for (int r; (r = in.read(buf)) > 0; ) {
                            n += r;
                        }
                    }
                    res.text("streamed " + n);
                }));
    }

    static byte[] gzip(byte[] data) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(b)) {
            z.write(data);
        }
        return b.toByteArray();
    }

    /** {@code size} zero bytes, gzip'd at level 9: about size/1000 bytes that inflate to size. */
    static byte[] bomb(long size) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
        Deflater d = new Deflater(9, true);
        byte[] zeros = new byte[1 << 20];
        byte[] out = new byte[64 * 1024];
        for (long done = 0; done < size; done += zeros.length) {
            d.setInput(zeros);
            while (!d.needsInput()) {
                b.write(out, 0, d.deflate(out));
            }
        }
        d.finish();
        while (!d.finished()) {
            b.write(out, 0, d.deflate(out));
        }
        d.end();
        return b.toByteArray(); // no valid trailer needed: the cap must stop it first
    }

    @Test
    void gzipBodiesAreDecodedWhereOptedIn() throws Exception {
        byte[] z = gzip(TEXT.getBytes(StandardCharsets.UTF_8));
        try (TestClient c = TestClient.of(app())) {
            assertEquals(TEXT.length() + ":null:" + TEXT, c.request("POST", "/decoded", z, "Content-Encoding", "gzip").text());
            assertEquals(TEXT.length() + ":null:" + TEXT, c.request("POST", "/decoded", z, "Content-Encoding", " X-GZIP ").text());
            assertEquals("a b&c", c.request("POST", "/form", gzip("b=a+b%26c".getBytes(StandardCharsets.US_ASCII)),
                    "Content-Encoding", "gzip", "Content-Type", "application/x-www-form-urlencoded").text());
            assertEquals("5:null:plain", c.request("POST", "/decoded", "plain".getBytes(StandardCharsets.US_ASCII)).text(),
                    "no Content-Encoding: untouched");
            assertEquals(z.length + ":gzip", c.request("POST", "/raw", z, "Content-Encoding", "gzip").text(),
                    "without the opt-in the body is left as sent");
            byte[] twoMembers = concat(gzip("one ".getBytes(StandardCharsets.US_ASCII)), gzip("two".getBytes(StandardCharsets.US_ASCII)));
            assertEquals("7:null:one two", c.request("POST", "/decoded", twoMembers, "Content-Encoding", "gzip").text());
        }
    }

    @Test
    void everyContentEncodingFieldLineIsReadAsOneList() throws Exception {
        byte[] z = gzip(TEXT.getBytes(StandardCharsets.UTF_8));
        String decoded = TEXT.length() + ":null:" + TEXT;
        try (TestClient c = TestClient.of(app())) {
            // RFC 9110 §5.3: several field lines are one list; §8.4.1: identity transforms nothing.
            assertEquals(decoded, c.request("POST", "/decoded", z, "Content-Encoding", "identity", "Content-Encoding", "gzip").text());
            assertEquals(decoded, c.request("POST", "/decoded", z, "Content-Encoding", "gzip", "Content-Encoding", "identity").text());
            assertEquals(decoded, c.request("POST", "/decoded", z, "Content-Encoding", "identity, gzip").text());
            assertEquals(decoded, c.request("POST", "/decoded", z, "Content-Encoding", "identity", "Content-Encoding", ",gzip,").text());
            assertEquals("5:identity:plain", c.request("POST", "/decoded", "plain".getBytes(StandardCharsets.US_ASCII),
                    "Content-Encoding", "identity", "Content-Encoding", "identity").text(), "identity only: untouched");
            for (String[] twice : new String[][] {{"gzip", "gzip"}, {"gzip", "br"}, {"identity", "br"}, {"br", "gzip"}}) {
                TestClient.Response r = c.request("POST", "/decoded", z, "Content-Encoding", twice[0], "Content-Encoding", twice[1]);
                assertEquals(415, r.status(), String.join(" + ", twice) + ": never passed on still coded");
                assertEquals("gzip", r.header("Accept-Encoding"));
            }
            String fields = c.request("POST", "/fields", z, "Content-Encoding", "identity", "X-A", "1", "Content-Encoding", "gzip").text();
            assertTrue(fields.endsWith(";" + TEXT) && !fields.toLowerCase(java.util.Locale.ROOT).contains("content-encoding;")
                    && fields.contains("X-A;"), "the decoded request lists no Content-Encoding: " + fields.substring(0, 120));
        }
    }

    @Test
    void corruptTruncatedTooLargeOrUnknownCodings() throws Exception {
        byte[] z = gzip(TEXT.getBytes(StandardCharsets.UTF_8));
        try (TestClient c = TestClient.of(app())) {
            assertEquals(400, c.request("POST", "/decoded", Arrays.copyOf(z, z.length - 9), "Content-Encoding", "gzip").status(), "truncated");
            byte[] badCrc = z.clone();
            badCrc[badCrc.length - 6] ^= 1;
            assertEquals(400, c.request("POST", "/decoded", badCrc, "Content-Encoding", "gzip").status(), "bad CRC");
            assertEquals(400, c.request("POST", "/decoded", "not gzip at all".getBytes(StandardCharsets.US_ASCII),
                    "Content-Encoding", "gzip").status());
            assertEquals(400, c.request("POST", "/decoded", new byte[0], "Content-Encoding", "gzip").status(), "empty");
            assertEquals(413, c.request("POST", "/decoded", bomb(64L << 20), "Content-Encoding", "gzip").status());
            TestClient.Response br = c.request("POST", "/decoded", z, "Content-Encoding", "br");
            assertEquals(415, br.status());
            assertEquals("gzip", br.header("Accept-Encoding"));
            assertEquals(415, c.request("POST", "/decoded", z, "Content-Encoding", "gzip, gzip").status());
            assertEquals(200, c.request("POST", "/decoded", z, "Content-Encoding", "gzip").status(), "the connection still serves");
        }
    }

    @Test
    void streamedBodiesAreDecodedAsTheHandlerReadsAndCapped() throws Exception {
        byte[] big = new byte[900_000];
        new java.util.Random(1).nextBytes(big); // incompressible: the coded body stays above the 64 KiB threshold
        try (TestClient c = TestClient.of(app())) {
            assertEquals("streamed 900000", c.request("POST", "/streamed", gzip(big), "Content-Encoding", "gzip").text());
            byte[] tooBig = new byte[1_200_000];
            new java.util.Random(2).nextBytes(tooBig);
            assertEquals(413, c.request("POST", "/streamed", gzip(tooBig), "Content-Encoding", "gzip").status());
        }
    }

    @Test
    void aBombIsRefusedAtTheCapWithoutAllocatingItsOutput() throws Exception {
        byte[] bomb = bomb(256L << 20); // ~256 KiB that would inflate to 256 MiB
        assertTrue(bomb.length < 2 << 20, "the bomb is small: " + bomb.length);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        ByteBuffer in = ByteBuffer.wrap(bomb);
        GzipBodyDecoder.decode(ByteBuffer.wrap(gzip(new byte[10])), CAP); // warm up the classes
        long before = mx.getThreadAllocatedBytes(id);
        BodyDecodingException e = assertThrows(BodyDecodingException.class, () -> GzipBodyDecoder.decode(in, CAP));
        long allocated = mx.getThreadAllocatedBytes(id) - before;
        assertEquals(413, e.status());
        assertTrue(allocated < 4 * CAP, "allocated " + allocated + " bytes for a cap of " + CAP);
        InputStream s = GzipBodyDecoder.stream(new java.io.ByteArrayInputStream(bomb), CAP);
        byte[] buf = new byte[1 << 16];
        BodyDecodingException e2 = assertThrows(BodyDecodingException.class, () -> {
            while (s.read(buf) >= 0) {
                // reading
            }
        });
        assertEquals(413, e2.status());
    }

    @Test
    void aBadCapIsRefusedAtTheCall() {
        assertThrows(IllegalArgumentException.class, () -> RequestDecoding.gzip(-1));
        assertThrows(NullPointerException.class, () -> RequestDecoding.gzip(10, null));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
