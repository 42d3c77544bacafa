package dev.peregrine.h2;

import dev.peregrine.Server;
import dev.peregrine.TestConfigs;
import dev.peregrine.h2.frame.Frames;
import dev.peregrine.loop.ConnectionHarness;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.route.Router;
import dev.peregrine.server.Http2Setup;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.server.ServerSetup;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.peregrine.h2.Http2ConnectionSplitTest.frame;
import static dev.peregrine.h2.Http2ConnectionSplitTest.transcript;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code Upgrade: h2c} through the production {@code Connection}, {@code Http1ServerProtocol} and
 * {@link Http2Connection} on {@code MemoryEndpoint}: until the client's preface is in, the server
 * sends the 101 and its own preface (SETTINGS, WINDOW_UPDATE) and nothing of stream 1, and runs no
 * handler; the preface, split at every byte, then dispatches stream 1 exactly once. (A client that
 * switches its reader after the 101 may keep only the first buffer of what came with it: the JDK
 * HttpClient did, and a large answer sent at once reached it misaligned. See {@link Http2Upgrade}.)
 */
class Http2UpgradeTest {
    private static final byte[] BODY = body(40_000);
    private static final String SWITCH = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n";
    private static final String ACK = Frames.SETTINGS + "/1/0 \n";
    private final AtomicInteger handled = new AtomicInteger();
    private final Router router = Router.builder()
            .add("GET", "/big", (req, res) -> {
                handled.incrementAndGet();
                res.body(BODY);
            })
            .add("GET", "/who", (req, res) -> {
                handled.incrementAndGet();
                res.text(req.version() + "|" + req.host() + "|" + req.header("Host") + "|" + req.query().get("q") + "|"
                        + req.header("X-Custom") + "|" + req.header("Connection") + "|" + req.header("Upgrade") + "|"
                        + req.header("HTTP2-Settings") + "|" + req.header("TE") + "|" + req.headers().name(0));
            })
            .build();
    private final LoopContext loop = loop(router);

    private static LoopContext loop(Router router) {
        dev.peregrine.ServerConfig config = TestConfigs.of(Server.builder());
        ServerSetup setup = new ServerSetup(config, router, Http2Setup.register(ProtocolSwitches.NONE, Http2Settings.DEFAULTS),
                new OffLoopExecutor(1), null, false, null);
        LoopContext ctx = new LoopContext(setup.listener(0, null));
        ctx.bind(new TestConfigs.TaskLoop());
        return ctx;
    }

    private static byte[] body(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('a' + i % 26);
        }
        return b;
    }

    /** The upgrade request (the JDK client's shape: Content-Length 0; settings: max streams 100, window 10 MiB, no push). */
    private static byte[] upgrade(String target, String... more) {
        StringBuilder r = new StringBuilder("GET " + target + " HTTP/1.1\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Content-Length: 0\r\nHost: h.example\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\nUpgrade: h2c\r\n");
        for (String line : more) {
            r.append(line).append("\r\n");
        }
        return r.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    /** The client's preface: the 24 octets and an empty SETTINGS (RFC 9113 §3.4). */
    private static byte[] preface() {
        return concat(Http2Connection.PREFACE, frame(Frames.SETTINGS, 0, 0, new byte[0]));
    }

    /** The frames the server wrote after its 101, as a transcript. */
    private static String frames(String written) {
        assertTrue(written.startsWith(SWITCH), written);
        return transcript(written.substring(SWITCH.length()).getBytes(StandardCharsets.ISO_8859_1));
    }

    /** The server's preface alone: SETTINGS, then WINDOW_UPDATE on 0 (as text, the payloads undecoded). */
    private String serverPreface() {
        ConnectionHarness h = new ConnectionHarness(loop);
        h.io.feed(upgrade("/big"));
        h.run();
        String t = frames(h.written());
        h.connection.close();
        return t;
    }

    @Test
    void nothingOfStreamOneLeavesBeforeTheClientsPreface() {
        ConnectionHarness h = new ConnectionHarness(loop);
        h.io.feed(upgrade("/big"));
        h.run();
        String before = frames(h.written());
        String[] lines = before.split("\n");
        assertEquals(2, lines.length, before);
        assertTrue(lines[0].startsWith(Frames.SETTINGS + "/0/0 "), before);
        assertTrue(lines[1].startsWith(Frames.WINDOW_UPDATE + "/0/0 "), before);
        assertEquals(0, handled.get(), "no handler runs before the client's preface");
        assertTrue(h.written().length() < 16 * 1024 - 1024, "what comes with the 101 fits a client's first buffer");

        h.io.feed(preface());
        h.run();
        String after = frames(h.written()).substring(before.length());
        assertEquals(1, handled.get());
        assertTrue(after.startsWith(Frames.SETTINGS + "/1/0 \n" + Frames.HEADERS + "/4/1 :status: 200; "), after);
        assertTrue(after.contains("content-length: 40000;"), after);
        StringBuilder data = new StringBuilder();
        for (String line : after.split("\n")) {
            if (line.startsWith(Frames.DATA + "/")) {
                data.append(line.substring(line.indexOf(' ') + 1));
            }
        }
        assertEquals(new String(BODY, StandardCharsets.ISO_8859_1), data.toString());
        assertTrue(after.contains(Frames.DATA + "/1/1 "), "END_STREAM on the last DATA: " + after);
        h.connection.close();
        assertEquals(0, loop.pool().lentCount(), "every buffer is back");
    }

    @Test
    void upgradeAndPrefaceSplitAtEveryByteAnswerStreamOneOnceAfterThePreface() {
        byte[] wire = concat(upgrade("/big"), preface());
        int prefaceEnd = wire.length - 9; // the 24 octets end where the SETTINGS frame begins
        String whole = deliver(wire);
        for (int k = 1; k < wire.length; k++) {
            handled.set(0);
            ConnectionHarness h = new ConnectionHarness(loop);
            h.io.feed(Arrays.copyOfRange(wire, 0, k));
            h.run();
            if (k < prefaceEnd) {
                assertEquals(0, handled.get(), "split at " + k);
                assertTrue(h.written().length() <= SWITCH.length() + 39 + 13, // the 101, SETTINGS, WINDOW_UPDATE at most
                        "split at " + k + ": " + h.written());
            }
            h.io.feed(Arrays.copyOfRange(wire, k, wire.length));
            h.run();
            assertEquals(1, handled.get(), "split at " + k);
            // the same frames; the SETTINGS ACK leaves after stream 1's when the preface's SETTINGS comes in a later read
            String t = frames(h.written());
            assertEquals(1, t.split(ACK, -1).length - 1, "split at " + k);
            assertTrue(whole.replace(ACK, "").equals(t.replace(ACK, "")), "split at " + k); // not printed: 40 kB
            assertEquals(k >= prefaceEnd, t.indexOf(ACK) > t.indexOf(Frames.HEADERS + "/4/1 "), "split at " + k);
            h.connection.close();
            assertEquals(0, loop.pool().lentCount(), "split at " + k + ": every buffer is back");
        }
    }

    private String deliver(byte[] wire) {
        ConnectionHarness h = new ConnectionHarness(loop);
        h.io.feed(wire);
        h.run();
        String t = frames(h.written());
        h.connection.close();
        return t;
    }

    @Test
    void aBadPrefaceEndsTheConnectionAndNoHandlerRuns() {
        ConnectionHarness h = new ConnectionHarness(loop);
        h.io.feed(upgrade("/big"));
        h.run();
        h.io.feed("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        h.run();
        String t = frames(h.written());
        assertEquals(serverPreface() + Frames.GOAWAY + "/0/0 ", t.substring(0, t.lastIndexOf(' ') + 1), t);
        assertFalse(t.contains("/1 "), "nothing on stream 1: " + t);
        assertEquals(0, handled.get());
        assertTrue(h.outputShut() || h.closed());
        h.connection.close();
        assertEquals(0, loop.pool().lentCount(), "the held request's buffer is back");
    }

    @Test
    void streamOneResetWithThePrefaceIsNeverAnswered() {
        ConnectionHarness h = new ConnectionHarness(loop);
        h.io.feed(concat(upgrade("/big"), preface(), frame(Frames.RST_STREAM, 0, 1, new byte[] {0, 0, 0, 8}))); // CANCEL
        h.run();
        String t = frames(h.written());
        assertFalse(t.contains("/1 "), "nothing on stream 1: " + t);
        assertEquals(0, handled.get());
        assertFalse(h.closed(), "the connection goes on");
        h.connection.close();
        assertEquals(0, loop.pool().lentCount(), "the held request's buffer is back");
    }

    @Test
    void theUpgradedRequestReadsAsAStreamsRequest() {
        ConnectionHarness h = new ConnectionHarness(loop);
        h.io.feed(concat(upgrade("/who?q=x%20y", "X-Custom: v", "TE: trailers"), preface()));
        h.run();
        String t = frames(h.written());
        // HTTP/2 fields (RFC 9113 §8.2.2, §8.3.1): the authority stands for Host, names lowercase, the
        // connection-specific fields and the upgrade's own are not carried; content-length 0 came first
        assertTrue(t.contains(Frames.DATA + "/1/1 HTTP/2.0|h.example|h.example|x y|v|null|null|null|trailers|host\n"), t);
        h.connection.close();
        assertEquals(0, loop.pool().lentCount());
    }
}
