package dev.peregrine.http2;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.h2.Http2Server;
import dev.peregrine.h2.Http2Settings;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.server.ServerLoop;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import dev.peregrine.testing.Await;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each HTTP/2 flood scripted over a raw socket ({@link H2Wire}): the server ends the abusing
 * connection with GOAWAY ENHANCE_YOUR_CALM (or answers the stream as the defence says), and another
 * connection is served at once afterwards. On every transport.
 */
class Http2FloodsTest {
    private static final int ENHANCE_YOUR_CALM = 0xb;

    private static Server start(String transport, Http2Settings settings) {
        Server.Builder b = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).transport(transport);
        return ProtocolSwitches.priorKnowledge(b, new Http2Server(settings, ctx -> ServerLoop.of(ctx).http2()).direct()).start();
    }

    private static Http2Settings settings(long stalledWriteMillis) {
        return new Http2Settings(100, 256 * 1024, 1 << 20, 4096, 16 * 1024, 64 * 1024, 32, 200, 200, 100, 100, 100,
                10_000, stalledWriteMillis);
    }

    /** The defence {@code kind} was counted in the server's metrics. */
    private static void counted(Server server, String kind) {
        Await.until("metrics count " + kind, () -> server.metrics().http2Defence(kind) >= 1);
    }

    /** A new connection gets GET /plaintext answered. */
    private static void bystanderServed(Server server) throws Exception {
        try (H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, true, H2Wire.get("/plaintext"));
            H2Wire.Frame data = w.until(0);
            assertNotNull(data, "no DATA for the bystander");
            assertEquals("Hello, World!", new String(data.payload(), StandardCharsets.ISO_8859_1));
        }
    }

    private static byte[] post() {
        return H2Wire.block(":method", "POST", ":scheme", "http", ":path", "/echo", ":authority", "localhost");
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void rapidReset(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port()).start()) {
            for (int i = 0, id = 1; i < 250; i++, id += 2) {
                w.headers(id, false, post());
                w.frame(3, 0, id, H2Wire.int32(8)); // RST_STREAM CANCEL
            }
            assertEquals(ENHANCE_YOUR_CALM, w.goAwayCode());
            assertTrue(w.closedByServer());
            counted(server, "rapid_reset");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void madeYouReset(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port()).start()) {
            for (int i = 0, id = 1; i < 250; i++, id += 2) {
                w.headers(id, false, post());
                w.frame(8, 0, id, H2Wire.int32(0)); // WINDOW_UPDATE of 0: the server resets the stream
            }
            assertEquals(ENHANCE_YOUR_CALM, w.goAwayCode());
            counted(server, "server_reset");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void continuationFloodByFrames(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port()).start()) {
            w.frame(1, 0, 1, H2Wire.get("/plaintext")); // no END_HEADERS
            byte[] piece = H2Wire.block("x-a", "b");
            for (int i = 0; i < 40; i++) {
                w.frame(9, 0, 1, piece);
            }
            assertEquals(ENHANCE_YOUR_CALM, w.goAwayCode());
            counted(server, "continuation_flood");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void continuationFloodBySize(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port()).start()) {
            w.frame(1, 0, 1, H2Wire.get("/plaintext"));
            byte[] piece = H2Wire.block("x-a", "b".repeat(16_000));
            for (int i = 0; i < 5; i++) { // 80 KB of fields, past the 64 KiB block cap
                w.frame(9, 0, 1, piece);
            }
            assertEquals(ENHANCE_YOUR_CALM, w.goAwayCode());
            counted(server, "continuation_flood");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void settingsFlood(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port()).start()) {
            for (int i = 0; i < 150; i++) {
                w.frame(4, 0, 0, new byte[0]);
            }
            assertEquals(ENHANCE_YOUR_CALM, w.goAwayCode());
            counted(server, "settings_flood");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void pingFlood(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port()).start()) {
            for (int i = 0; i < 150; i++) {
                w.frame(6, 0, 0, new byte[8]);
            }
            assertEquals(ENHANCE_YOUR_CALM, w.goAwayCode());
            counted(server, "ping_flood");
            bystanderServed(server);
        }
    }

    /**
     * The highest limit a count holds (65,535, a {@code char} of the connection's): every PING up to it is
     * answered, the next is the flood (a count that wrapped would never trip).
     */
    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void theHighestPingLimitCountsEveryFrame(String transport) throws Exception {
        int limit = 65_535;
        Http2Settings highest = new Http2Settings(100, 256 * 1024, 1 << 20, 4096, 16 * 1024, 64 * 1024, 32, 200, 200, 100,
                limit, 100, 60_000, 30_000);
        try (Server server = start(transport, highest); H2Wire w = new H2Wire(server.port()).start()) {
            byte[] pings = new byte[(limit + 1) * 17];
            for (int i = 0; i <= limit; i++) {
                System.arraycopy(H2Wire.header(8, 6, 0, 0), 0, pings, i * 17, 9);
                System.arraycopy(H2Wire.int32(i), 0, pings, i * 17 + 13, 4);
            }
            java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    w.raw(pings); // written while this thread reads the answers: neither side's buffers fill
                } catch (Throwable e) {
                    failed.set(e);
                }
            });
            writer.start();
            int acks = 0;
            H2Wire.Frame f;
            while ((f = w.read()).type() != 7) {
                if (f.type() == 6) {
                    assertEquals(acks, f.int32(4), "PINGs are answered in order");
                    acks++;
                }
            }
            writer.join();
            assertEquals(null, failed.get());
            assertEquals(limit, acks, "every PING up to the limit answered");
            assertEquals(ENHANCE_YOUR_CALM, f.int32(4));
            counted(server, "ping_flood");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void emptyDataFlood(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port()).start()) {
            w.headers(1, false, post());
            for (int i = 0; i < 150; i++) {
                w.frame(0, 0, 1, new byte[0]);
            }
            assertEquals(ENHANCE_YOUR_CALM, w.goAwayCode());
            counted(server, "empty_frames");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void hpackBombIsAnswered431AndTheConnectionLives(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port()).start()) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(H2Wire.get("/plaintext"));
            b.write(0x40); // literal with incremental indexing: a 4000-byte value enters the table as index 62
            b.write(3);
            b.writeBytes("x-b".getBytes(StandardCharsets.ISO_8859_1));
            b.write(127);
            int v = 4000 - 127;
            b.write((v & 0x7f) | 0x80);
            b.write(v >>> 7);
            b.writeBytes("z".repeat(4000).getBytes(StandardCharsets.ISO_8859_1));
            for (int i = 0; i < 1000; i++) {
                b.write(0x80 | 62); // one byte, 4 KB decoded: 4 MB in all
            }
            w.headers(1, true, b.toByteArray());
            H2Wire.Frame h = w.until(1);
            assertNotNull(h);
            assertTrue(new String(h.payload(), StandardCharsets.ISO_8859_1).contains("431"), "expected :status 431");
            w.headers(3, true, H2Wire.get("/plaintext")); // the same connection goes on
            H2Wire.Frame data = w.until(0);
            assertNotNull(data);
            assertEquals(3, data.stream() == 1 ? w.until(0).stream() : data.stream());
            counted(server, "header_list_too_large");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void streamsOverTheLimitAreRefused(String transport) throws Exception {
        try (Server server = start(transport, Http2Settings.DEFAULTS); H2Wire w = new H2Wire(server.port())) {
            w.socket.getOutputStream().write(H2Wire.PREFACE);
            w.frame(4, 0, 0, new byte[] {0, 4, 0, 0, 0, 0}); // SETTINGS_INITIAL_WINDOW_SIZE 0: no response can end
            for (int i = 0, id = 1; i <= 100; i++, id += 2) {
                w.headers(id, true, H2Wire.get("/plaintext"));
            }
            H2Wire.Frame rst = w.until(3);
            assertNotNull(rst);
            assertEquals(201, rst.stream());
            assertEquals(7, rst.int32(0)); // REFUSED_STREAM
            counted(server, "refused_stream");
            bystanderServed(server);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.testing.Transports#names")
    void zeroWindowHeldOpenIsCut(String transport) throws Exception {
        try (Server server = start(transport, settings(300)); H2Wire w = new H2Wire(server.port())) {
            w.socket.getOutputStream().write(H2Wire.PREFACE);
            w.frame(4, 0, 0, new byte[] {0, 4, 0, 0, 0, 0});
            w.headers(1, true, H2Wire.get("/plaintext"));
            assertEquals(ENHANCE_YOUR_CALM, w.goAwayCode()); // HEADERS came, DATA never could: cut by the timer
            assertTrue(w.closedByServer());
            counted(server, "stalled_write");
            bystanderServed(server);
        }
    }
}
