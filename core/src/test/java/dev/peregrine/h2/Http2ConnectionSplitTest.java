package dev.peregrine.h2;

import dev.peregrine.Server;
import dev.peregrine.TestConfigs;
import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.frame.Frames;
import dev.peregrine.h2.hpack.HpackDecoder;
import dev.peregrine.loop.ConnectionHarness;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.route.Router;
import dev.peregrine.server.Http2Setup;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.server.ServerSetup;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A whole HTTP/2 conversation through the production {@code Connection} and {@link Http2Connection}
 * (on {@code MemoryEndpoint}), split at every byte, and with its field blocks split across
 * CONTINUATION at every byte: the frames the server answers must be those of the unsplit delivery
 * (compared as a transcript with HPACK decoded and {@code date} left out).
 */
class Http2ConnectionSplitTest {
    private static final Router ROUTER = Router.builder()
            .add("GET", "/plaintext", (req, res) -> res.text("Hello, World!"))
            .add("POST", "/echo", (req, res) -> res.body(req.body()))
            .add("GET", "/who", (req, res) -> res.text(req.version() + " " + req.host() + " " + req.query().get("q")))
            .build();
    private final LoopContext loop = loop();

    private static LoopContext loop() {
        dev.peregrine.ServerConfig config = TestConfigs.of(Server.builder());
        ServerSetup setup = new ServerSetup(config, ROUTER, Http2Setup.register(ProtocolSwitches.NONE, Http2Settings.DEFAULTS),
                new OffLoopExecutor(1), null, false, null);
        LoopContext ctx = new LoopContext(setup.listener(0, null));
        ctx.bind(new TestConfigs.TaskLoop());
        return ctx;
    }

    static byte[] frame(int type, int flags, int stream, byte[] payload) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(payload.length >>> 16);
        b.write(payload.length >>> 8);
        b.write(payload.length);
        b.write(type);
        b.write(flags);
        b.writeBytes(new byte[] {(byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream});
        b.writeBytes(payload);
        return b.toByteArray();
    }

    static byte[] hex(String h) {
        return HexFormat.of().parseHex(h.replaceAll("\\s", ""));
    }

    /** RFC 7541 C.4's three requests (Huffman, incremental indexing: each leans on the table the last left). */
    static final byte[][] C4 = {
        hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"),
        hex("8286 84be 5886 a8eb 1064 9cbf"),
        hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"),
    };

    /** Literal fields without indexing (RFC 7541 §6.2.2). */
    static byte[] literals(String... nameValues) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < nameValues.length; i += 2) {
            b.write(0);
            b.write(nameValues[i].length());
            b.writeBytes(nameValues[i].getBytes(StandardCharsets.ISO_8859_1));
            b.write(nameValues[i + 1].length());
            b.writeBytes(nameValues[i + 1].getBytes(StandardCharsets.ISO_8859_1));
        }
        return b.toByteArray();
    }

    static byte[] conversation(byte[] firstBlock, int continuationAt) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(Http2Connection.PREFACE);
        b.writeBytes(frame(Frames.SETTINGS, 0, 0, new byte[] {0, 4, 0, 1, 0, 0})); // initial window 65536
        if (continuationAt > 0) {
            b.writeBytes(frame(Frames.HEADERS, Frames.FLAG_END_STREAM, 1, Arrays.copyOfRange(firstBlock, 0, continuationAt)));
            b.writeBytes(frame(Frames.CONTINUATION, Frames.FLAG_END_HEADERS, 1, Arrays.copyOfRange(firstBlock, continuationAt, firstBlock.length)));
        } else {
            b.writeBytes(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 1, firstBlock));
        }
        b.writeBytes(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 3, C4[1]));
        b.writeBytes(frame(Frames.PING, 0, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        b.writeBytes(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 5, C4[2]));
        byte[] post = literals(":method", "POST", ":scheme", "http", ":path", "/echo", ":authority", "a", "content-length", "11");
        b.writeBytes(frame(Frames.HEADERS, Frames.FLAG_END_HEADERS, 7, post));
        b.writeBytes(frame(Frames.DATA, 0, 7, "hello ".getBytes(StandardCharsets.ISO_8859_1)));
        b.writeBytes(frame(Frames.DATA, Frames.FLAG_END_STREAM | Frames.FLAG_PADDED, 7, hex("03 776f726c64 000000"))); // "world", 3 padding
        b.writeBytes(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 9,
                literals(":method", "GET", ":scheme", "http", ":path", "/who?q=x%20y", ":authority", "h.example:8080")));
        b.writeBytes(frame(Frames.GOAWAY, 0, 0, new byte[8]));
        return b.toByteArray();
    }

    /** The server's frames as text: HPACK decoded (date left out), DATA as text. */
    static String transcript(byte[] wire) {
        ByteBuffer b = ByteBuffer.wrap(wire);
        FrameParser p = new FrameParser();
        HpackDecoder d = new HpackDecoder(4096, 65536);
        StringBuilder out = new StringBuilder();
        int pos = 0;
        while (pos < wire.length) {
            int r = p.parse(b, pos, wire.length);
            assertTrue(r > 0, "the server wrote a broken frame at " + pos);
            out.append(p.type()).append('/').append(p.flags()).append('/').append(p.streamId()).append(' ');
            if (p.type() == Frames.HEADERS) {
                ByteBuffer dst = ByteBuffer.allocate(65536);
                d.decode(b, p.dataStart(), p.dataEnd(), dst, 0, dst.capacity(), (buf, ns, ne, vs, ve) -> {
                    String name = new String(buf.array(), ns, ne - ns, StandardCharsets.ISO_8859_1);
                    if (!name.equals("date")) {
                        out.append(name).append(": ").append(new String(buf.array(), vs, ve - vs, StandardCharsets.ISO_8859_1)).append("; ");
                    }
                });
            } else {
                out.append(new String(wire, p.dataStart(), p.dataEnd() - p.dataStart(), StandardCharsets.ISO_8859_1));
            }
            out.append('\n');
            pos = r;
        }
        return out.toString();
    }

    /** A connection on this test's loop. */
    ConnectionHarness open() {
        return new ConnectionHarness(loop);
    }

    /** Delivers {@code bytes} in one piece; the connection must end with every buffer back. */
    void deliverRaw(byte[] bytes) {
        ConnectionHarness h = new ConnectionHarness(loop);
        h.io.feed(bytes);
        h.run();
        if (!h.closed()) {
            h.io.endOfInput();
            h.run();
        }
        h.connection.close();
        assertEquals(0, loop.pool().lentCount(), "every buffer is back");
    }

    private String deliver(byte[] bytes, int split) {
        ConnectionHarness h = new ConnectionHarness(loop);
        if (split > 0) {
            h.io.feed(Arrays.copyOfRange(bytes, 0, split));
            h.run();
        }
        if (!h.closed()) {
            h.io.feed(Arrays.copyOfRange(bytes, split, bytes.length));
            h.run();
        }
        if (!h.closed()) {
            h.io.endOfInput();
            h.run();
        }
        byte[] out = h.written().getBytes(StandardCharsets.ISO_8859_1);
        h.connection.close();
        assertEquals(0, loop.pool().lentCount(), "every buffer is back");
        return transcript(out);
    }

    @Test
    void theConversationAnswersEveryStream() {
        String t = deliver(conversation(C4[0], 0), 0);
        assertTrue(t.contains("1/4/1 :status: 404"), t);
        assertTrue(t.contains("6/1/0 \u0001\u0002\u0003\u0004\u0005\u0006\u0007\u0008"), t); // PING ACK
        assertTrue(t.contains("0/1/7 hello world"), t);
        assertTrue(t.contains("0/1/9 HTTP/2.0 h.example:8080 x y"), t);
    }

    @Test
    void everySplitPointGivesTheSameFrames() {
        byte[] wire = conversation(C4[0], 0);
        String whole = deliver(wire, 0);
        for (int k = 1; k < wire.length; k++) {
            assertEquals(whole, deliver(wire, k), "split at " + k);
        }
    }

    @Test
    void aFieldBlockSplitAcrossContinuationAtEveryByte() {
        String whole = deliver(conversation(C4[0], 0), 0);
        for (int k = 1; k < C4[0].length; k++) {
            assertEquals(whole, deliver(conversation(C4[0], k), 0), "CONTINUATION at " + k);
        }
    }
}
