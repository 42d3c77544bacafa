package dev.peregrine.http2;

import dev.peregrine.Server;
import dev.peregrine.Trailers;
import dev.peregrine.e2e.TrailerRoutes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A request's trailing HEADERS (RFC 9113 §8.1) reach handlers through {@code req.trailers()}, over raw
 * frames ({@link H2Wire}; the JDK HttpClient sends no request trailers): an inline handler (body
 * gathered) at dispatch, a blocking handler (body in pieces) once its stream returned -1, a streaming
 * listener in {@code onTrailers}; with and without {@code content-length} (the body in pieces then ends
 * at END_STREAM, not at its last byte, so the trailers are there when the stream returns -1); at every
 * split of the frames; never among the header fields. Past the header list size (in a CONTINUATION):
 * 431. Every transport.
 */
class Http2RequestTrailersTest {
    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int CONTINUATION = 9;
    private static final String WANT = "hello | Trailers[checksum: abc, x-two: 2] | header null";

    private static Server start(String transport) {
        return TrailerRoutes.add(Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport).http2(true)
                .streamBodyThreshold(0).asyncTimeout(java.time.Duration.ofSeconds(20)), "checksum").start();
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        byte[] f = Arrays.copyOf(H2Wire.header(payload.length, type, flags, stream), 9 + payload.length);
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** POST {@code path} on {@code stream}: HEADERS, DATA "hello", trailing HEADERS with END_STREAM. */
    private static byte[] request(int stream, String path, boolean contentLength) {
        byte[] head = contentLength
                ? H2Wire.block(":method", "POST", ":scheme", "http", ":path", path, ":authority", "localhost", "content-length", "5")
                : H2Wire.block(":method", "POST", ":scheme", "http", ":path", path, ":authority", "localhost");
        return concat(frame(HEADERS, 4, stream, head),
                frame(DATA, 0, stream, "hello".getBytes(StandardCharsets.ISO_8859_1)),
                frame(HEADERS, 5, stream, H2Wire.block("checksum", "abc", "x-two", "2")));
    }

    private static String answer(H2Wire w) throws Exception {
        H2Wire.Frame data = w.until(DATA);
        assertNotNull(data, "no DATA");
        return new String(data.payload(), StandardCharsets.ISO_8859_1);
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void everyKindOfHandlerGetsTheTrailersAtEverySplit(String transport) throws Exception {
        try (Server server = start(transport); H2Wire w = new H2Wire(server.port()).start()) {
            int stream = 1;
            for (String path : new String[] {"/inline", "/blocking", "/listen"}) {
                for (boolean length : new boolean[] {true, false}) {
                    byte[] wire = request(0, path, length); // its length, for the splits
                    for (int split = 0; split <= wire.length; split++, stream += 2) {
                        byte[] r = request(stream, path, length);
                        w.raw(Arrays.copyOfRange(r, 0, split));
                        w.raw(Arrays.copyOfRange(r, split, r.length));
                        assertEquals(WANT, answer(w), path + (length ? " with" : " without") + " content-length, split at " + split);
                    }
                }
            }
            assertEquals(0, server.metrics().handlerErrors);
        }
    }

    /** More trailer fields than {@code maxHeaderCount} (100) but within the header list size: all of them, as over HTTP/1.1. */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void manySmallTrailersAreAllKept(String transport) throws Exception {
        String[] fields = new String[2 * 150];
        for (int i = 0; i < fields.length; i += 2) {
            fields[i] = "t" + i / 2;
            fields[i + 1] = "v";
        }
        try (Server server = start(transport); H2Wire w = new H2Wire(server.port()).start()) {
            byte[] head = H2Wire.block(":method", "POST", ":scheme", "http", ":path", "/inline", ":authority", "localhost");
            w.raw(concat(frame(HEADERS, 4, 1, head), frame(DATA, 0, 1, "hello".getBytes(StandardCharsets.ISO_8859_1)),
                    frame(HEADERS, 5, 1, H2Wire.block(fields))));
            String got = answer(w);
            assertEquals(150, got.split(": v").length - 1, got);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void trailersPastTheHeaderListSizeAre431(String transport) throws Exception {
        String[] fields = new String[40];
        for (int i = 0; i < fields.length; i += 2) {
            fields[i] = "x-big-" + i;
            fields[i + 1] = "b".repeat(1000); // 20 fields of about 1 KB: past the 16 KiB header list size
        }
        byte[] block = H2Wire.block(fields);
        try (Server server = start(transport); H2Wire w = new H2Wire(server.port()).start()) {
            int stream = 1;
            for (String path : new String[] {"/inline", "/blocking", "/listen"}) {
                byte[] head = H2Wire.block(":method", "POST", ":scheme", "http", ":path", path, ":authority", "localhost");
                w.raw(concat(frame(HEADERS, 4, stream, head), frame(DATA, 0, stream, "hello".getBytes(StandardCharsets.ISO_8859_1)),
                        frame(HEADERS, 1, stream, Arrays.copyOf(block, 10_000)), // END_STREAM, the block goes on in a CONTINUATION
                        frame(CONTINUATION, 4, stream, Arrays.copyOfRange(block, 10_000, block.length))));
                H2Wire.Frame h = w.until(HEADERS);
                assertNotNull(h, path);
                assertEquals("431", new String(h.payload(), 2, 3, StandardCharsets.ISO_8859_1), path);
                stream += 2;
            }
            // the connection goes on
            w.raw(request(stream, "/inline", true));
            H2Wire.Frame f;
            while ((f = w.until(DATA)).stream() != stream) {
                // the error answers' bodies
            }
            assertEquals(WANT, new String(f.payload(), StandardCharsets.ISO_8859_1));
        }
    }
}
