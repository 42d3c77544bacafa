package dev.peregrine.h2;

import dev.peregrine.Server;
import dev.peregrine.TestConfigs;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.frame.Frames;
import dev.peregrine.h2.hpack.HpackDecoder;
import dev.peregrine.h2.hpack.HpackTable;
import dev.peregrine.loop.ConnectionHarness;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.route.Router;
import dev.peregrine.server.Http2Setup;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.server.ServerSetup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A response block sent again as it is ({@link ResponseRepeat}) only while that is what encoding would
 * give: the key's parts one by one (table, its version, status, content-length, content-type, date,
 * fields; only Strings are keys), and whole conversations on one loop whose every HEADERS block a stateful decoder must
 * read back to the fields the handler gave, through content-type changes, interim responses that add
 * to the table, a mutable content-type, two connections taking turns, and the peer's
 * SETTINGS_HEADER_TABLE_SIZE going to 0 and back (size updates, RFC 7541 §4.2, §6.3).
 */
class ResponseRepeatTest {
    private static final byte[] DATE_A = "Date: Thu, 26 Nov 2026 23:00:00 GMT\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DATE_B = "Date: Thu, 26 Nov 2026 23:00:01 GMT\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] BLOCK = {(byte) 0x88, (byte) 0xc0, (byte) 0xbf, (byte) 0xbe, (byte) 0xbd};

    private static ResponseView plain(String type) {
        ResponseView res = new ResponseView();
        res.contentType(type).body(new byte[13]);
        return res;
    }

    private static boolean matches(ResponseRepeat r, HpackTable t, ResponseView res, long length, byte[] date) {
        return r.matches(t, res, length, date, 6, date.length - 8);
    }

    @Test
    void eachPartOfTheKeyMustMatch() {
        HpackTable t = new HpackTable(4096);
        t.add("server".getBytes(StandardCharsets.US_ASCII), "Peregrine".getBytes(StandardCharsets.US_ASCII));
        ResponseRepeat r = new ResponseRepeat();
        ResponseView res = plain("text/plain");
        assertFalse(matches(r, t, res, 13, DATE_A), "nothing remembered yet");
        r.remember(t, t.version(), BLOCK, BLOCK.length, res, 13, DATE_A, 6, DATE_A.length - 8);
        assertTrue(matches(r, t, res, 13, DATE_A));
        assertTrue(matches(r, t, plain(new String("text/plain")), 13, DATE_A), "an equal String is the same type");
        assertEquals(BLOCK.length, r.length());
        assertFalse(matches(r, t, res, 14, DATE_A), "another content-length");
        assertFalse(matches(r, t, res, -1, DATE_A), "no content-length");
        assertFalse(matches(r, t, plain("text/html"), 13, DATE_A), "another content-type");
        assertFalse(matches(r, t, res, 13, DATE_B), "the next second's date");
        ResponseView notFound = plain("text/plain");
        notFound.status(404);
        assertFalse(matches(r, t, notFound, 13, DATE_A), "another status");
        ResponseView withField = plain("text/plain");
        withField.header("cache-control", "no-store");
        assertFalse(matches(r, t, withField, 13, DATE_A), "a field more");
        assertFalse(matches(r, new HpackTable(4096), res, 13, DATE_A), "another connection's table");
        t.add("etag".getBytes(StandardCharsets.US_ASCII), "x".getBytes(StandardCharsets.US_ASCII));
        assertFalse(matches(r, t, res, 13, DATE_A), "the table changed since");

        r.remember(t, t.version(), BLOCK, BLOCK.length, withField, 13, DATE_A, 6, DATE_A.length - 8);
        ResponseView same = plain("text/plain");
        same.header("cache-control", new String("no-store"));
        assertTrue(matches(r, t, same, 13, DATE_A));
        ResponseView other = plain("text/plain");
        other.header("cache-control", "no-cache");
        assertFalse(matches(r, t, other, 13, DATE_A), "another field value");

        int before = t.version();
        t.maxSize(2048);
        r.remember(t, before, BLOCK, BLOCK.length, res, 13, DATE_A, 6, DATE_A.length - 8);
        assertFalse(matches(r, t, res, 13, DATE_A), "a block whose encoding moved the table is not kept");
    }

    @Test
    void onlyImmutableFieldsAreKeys() {
        HpackTable t = new HpackTable(4096);
        assertTrue(ResponseRepeat.eligible(t, plain("text/plain")));
        assertFalse(ResponseRepeat.eligible(null, plain("text/plain")), "stream 1 is answered without a table");
        ResponseView withId = plain("text/plain");
        withId.requestId("abc");
        assertFalse(ResponseRepeat.eligible(t, withId), "x-request-id is unique per response");
        ResponseView mutable = new ResponseView();
        mutable.contentType(new StringBuilder("text/plain"));
        assertTrue(ResponseRepeat.eligible(t, mutable), "the view keeps a mutable value's String copy (HeaderRules.immutable)");
        ResponseView many = plain("text/plain");
        for (int i = 0; i <= ResponseRepeat.MAX_FIELDS; i++) {
            many.header("x-" + i, "v");
        }
        assertFalse(ResponseRepeat.eligible(t, many));
    }

    // ---------------------------------------------------------------- conversations

    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final Router ROUTER = Router.builder()
            .add("GET", "/plain", (req, res) -> res.contentType("text/plain").body(HELLO))
            .add("GET", "/json", (req, res) -> res.contentType("application/json").body("{}".getBytes(StandardCharsets.US_ASCII)))
            .add("GET", "/cache", (req, res) -> res.header("cache-control", req.query().get("v")).contentType("text/plain").body(HELLO))
            .add("GET", "/mutable", (req, res) -> res.contentType(new StringBuilder("text/plain")).body(HELLO))
            .add("GET", "/early", (req, res) -> res.interim(103, "link", "</s.css>; rel=preload").contentType("text/plain").body(HELLO))
            .build();
    private final OffLoopExecutor blocking = new OffLoopExecutor(1);
    private final LoopContext loop = loop();

    private LoopContext loop() {
        ServerSetup setup = new ServerSetup(TestConfigs.of(Server.builder()), ROUTER,
                Http2Setup.register(ProtocolSwitches.NONE, Http2Settings.DEFAULTS), blocking, null, false, null);
        LoopContext ctx = new LoopContext(setup.listener(0, null));
        ctx.bind(new TestConfigs.TaskLoop());
        return ctx;
    }

    @AfterEach
    void stop() {
        blocking.shutdown();
    }

    /** What each path answers (date left out), as the decoder must read it back. */
    private static String expected(String path) {
        String type = path.equals("/json") ? "application/json" : "text/plain";
        String length = path.equals("/json") ? "2" : "13";
        String cache = path.startsWith("/cache") ? "cache-control: " + path.substring(path.indexOf('=') + 1) + "; " : "";
        return ":status: 200; server: Peregrine; content-type: " + type + "; " + cache + "content-length: " + length + "; ";
    }

    private static byte[] get(int stream, String path) {
        return Http2ConnectionSplitTest.frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, stream,
                Http2ConnectionSplitTest.literals(":method", "GET", ":scheme", "http", ":path", path, ":authority", "a"));
    }

    private static byte[] tableSize(int bytes) {
        return Http2ConnectionSplitTest.frame(Frames.SETTINGS, 0, 0, new byte[] {0, 1, (byte) (bytes >>> 24), (byte) (bytes >>> 16),
            (byte) (bytes >>> 8), (byte) bytes});
    }

    /** One client: its stream ids, the paths it asked for, and a decoder following the server's blocks. */
    private final class Client {
        final ConnectionHarness h = new ConnectionHarness(loop);
        final List<String> paths = new ArrayList<>();
        int next = 1;

        Client() {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(Http2Connection.PREFACE);
            b.writeBytes(Http2ConnectionSplitTest.frame(Frames.SETTINGS, 0, 0, new byte[0]));
            send(b.toByteArray());
        }

        /** The requests for {@code paths}, all in one read. */
        void ask(String... paths) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (String p : paths) {
                b.writeBytes(get(next, p));
                this.paths.add(p);
                next += 2;
            }
            send(b.toByteArray());
        }

        void send(byte[] bytes) {
            h.io.feed(bytes);
            h.run();
        }

        /** Every final response's fields (date left out), and the lengths of their blocks, from a stateful decoder. */
        List<String> answers(List<Integer> blockLengths) {
            byte[] wire = h.written().getBytes(StandardCharsets.ISO_8859_1);
            ByteBuffer b = ByteBuffer.wrap(wire);
            FrameParser p = new FrameParser();
            HpackDecoder d = new HpackDecoder(4096, 65536);
            List<String> out = new ArrayList<>();
            int pos = 0;
            while (pos < wire.length) {
                int r = p.parse(b, pos, wire.length);
                assertTrue(r > 0, "the server wrote a broken frame at " + pos);
                if (p.type() == Frames.HEADERS) {
                    StringBuilder fields = new StringBuilder();
                    ByteBuffer dst = ByteBuffer.allocate(65536);
                    int n = d.decode(b, p.dataStart(), p.dataEnd(), dst, 0, dst.capacity(), (buf, ns, ne, vs, ve) -> {
                        String name = new String(buf.array(), ns, ne - ns, StandardCharsets.ISO_8859_1);
                        if (!name.equals("date")) {
                            fields.append(name).append(": ").append(new String(buf.array(), vs, ve - vs, StandardCharsets.ISO_8859_1)).append("; ");
                        }
                    });
                    assertTrue(n >= 0, "a block the decoder refused: " + fields);
                    if (!fields.toString().startsWith(":status: 103")) {
                        out.add(fields.toString());
                        blockLengths.add(p.dataEnd() - p.dataStart());
                    }
                }
                pos = r;
            }
            return out;
        }

        void check(List<Integer> blockLengths) {
            List<String> want = new ArrayList<>();
            for (String path : paths) {
                want.add(expected(path));
            }
            assertEquals(want, answers(blockLengths));
            h.connection.close();
        }
    }

    @Test
    void everyBlockDecodesToItsResponsesFieldsWhateverCameBetween() {
        Client a = new Client();
        a.ask("/plain", "/plain", "/plain", "/json", "/plain", "/plain", "/cache?v=1", "/cache?v=1", "/cache?v=2", "/plain");
        a.ask("/plain", "/early", "/plain", "/plain", "/mutable", "/plain", "/json", "/json");
        List<Integer> lengths = new ArrayList<>();
        a.check(lengths);
        // once the table holds them, a repeated /plain is 5 indexed bytes: status, server, date, type, length
        assertEquals(5, (int) lengths.get(2));
        assertEquals(5, (int) lengths.get(lengths.size() - 5));
    }

    @Test
    void twoConnectionsTakingTurnsOnOneLoop() {
        Client a = new Client();
        Client b = new Client();
        for (int i = 0; i < 3; i++) {
            a.ask("/plain", "/plain");
            b.ask("/plain", "/json", "/plain");
            a.ask("/json");
            b.ask("/plain");
            a.ask("/plain", "/cache?v=" + i);
        }
        a.check(new ArrayList<>());
        b.check(new ArrayList<>());
    }

    @Test
    void thePeersTableSizeGoingToZeroAndBack() {
        Client a = new Client();
        a.ask("/plain", "/plain", "/plain");
        a.send(tableSize(0)); // the next block starts with a size update to 0: the table empties
        a.ask("/plain", "/plain");
        a.send(tableSize(4096));
        a.ask("/plain", "/plain", "/plain");
        a.send(tableSize(100));
        a.send(tableSize(4096)); // lowered and raised between two blocks: both signalled (§4.2)
        a.ask("/plain", "/plain");
        List<Integer> lengths = new ArrayList<>();
        a.check(lengths);
        assertEquals(5, (int) lengths.get(2));
        assertTrue(lengths.get(4) > 5, "with no table every field is a literal: " + lengths);
        assertEquals(5, (int) lengths.get(7));
    }
}
