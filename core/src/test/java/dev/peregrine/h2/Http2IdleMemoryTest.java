package dev.peregrine.h2;

import dev.peregrine.h2.frame.Frames;
import dev.peregrine.loop.ConnectionHarness;
import dev.peregrine.loop.LoopContext;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.Arrays;

import static dev.peregrine.h2.Http2ConnectionSplitTest.C4;
import static dev.peregrine.h2.Http2ConnectionSplitTest.frame;
import static dev.peregrine.h2.Http2ConnectionSplitTest.literals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an idle connection keeps between requests (issue 28's census): no frame parser, no field block
 * and, while its HPACK table is empty, no decoder, all lent by the loop for a call or a block; a
 * connection whose peer indexes fields keeps its decoder, whose table the next block leans on; blocks
 * of two connections assembled at once on one loop each get their own.
 */
class Http2IdleMemoryTest {
    private static final byte[] GET = literals(":method", "GET", ":scheme", "http", ":path", "/plaintext", ":authority", "a");
    private final LoopContext loop = new Http2ConnectionSplitTest().open().ctx;

    private static byte[] start() {
        byte[] settings = frame(Frames.SETTINGS, 0, 0, new byte[0]);
        byte[] b = Arrays.copyOf(Http2Connection.PREFACE, Http2Connection.PREFACE.length + settings.length);
        System.arraycopy(settings, 0, b, Http2Connection.PREFACE.length, settings.length);
        return b;
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    private ConnectionHarness open() {
        ConnectionHarness h = new ConnectionHarness(loop);
        h.io.feed(start());
        h.run();
        return h;
    }

    private static Http2Connection h2(ConnectionHarness h) {
        return (Http2Connection) h.connection.protocol();
    }

    private static void assertIdle(Http2Connection c) throws ReflectiveOperationException {
        assertNull(field(c, "parser"), "the parser is the loop's between reads");
        assertNull(field(c, "block"), "no field block between blocks");
        assertNull(field(c.streams, "open"), "no stream array");
        assertEquals(0, c.streams.count());
    }

    private static String answers(ConnectionHarness h) {
        return Http2ConnectionSplitTest.transcript(h.written().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    @Test
    void afterARequestWithoutIndexingNothingIsHeldButTheConnectionsOwnFields() throws ReflectiveOperationException {
        ConnectionHarness h = open();
        Http2Connection c = h2(h);
        assertIdle(c);
        for (int id = 1; id <= 5; id += 2) {
            h.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, id, GET));
            h.run();
            assertIdle(c);
            assertNull(field(c, "decoder"), "an empty table: the decoder went back to the loop");
        }
        String t = answers(h);
        for (int id = 1; id <= 5; id += 2) {
            assertTrue(t.contains("0/1/" + id + " Hello, World!"), t);
        }
        assertTrue(!h.closed());
    }

    @Test
    void theResponseTableIsMadeAtTheSecondStreamNotTheFirst() throws ReflectiveOperationException {
        ConnectionHarness h = open();
        Http2Connection c = h2(h);
        h.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 1, GET));
        h.run();
        assertNull(c.responseTable, "a connection that made one request holds no response table");
        h.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 3, GET));
        h.run();
        assertNotNull(c.responseTable, "from the second stream on, the repeated fields are indexed");
        String t = answers(h);
        assertTrue(t.contains("0/1/1 Hello, World!") && t.contains("0/1/3 Hello, World!"), t);
    }

    @Test
    void aPeerThatIndexesKeepsItsDecoderAndTheNextBlockLeansOnIt() throws ReflectiveOperationException {
        ConnectionHarness h = open();
        Http2Connection c = h2(h);
        h.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 1, C4[0]));
        h.run();
        assertNotNull(field(c, "decoder"), "the table holds the peer's entry");
        assertIdle(c);
        // Another connection of the loop decodes meanwhile with a pristine decoder of its own.
        ConnectionHarness other = open();
        other.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 1, GET));
        other.run();
        assertTrue(answers(other).contains("0/1/1 Hello, World!"), answers(other));
        h.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM | Frames.FLAG_END_HEADERS, 3, C4[1])); // index 62: the entry of C4[0]
        h.run();
        String t = answers(h);
        assertTrue(t.contains("1/4/1 :status: 404") && t.contains("1/4/3 :status: 404"), t); // GET / and its repeat, both decoded
        assertTrue(!t.contains("7/"), "no GOAWAY (a lost table would be a COMPRESSION_ERROR): " + t);
    }

    @Test
    void blocksOfTwoConnectionsAssembledAtOnceStayApart() throws ReflectiveOperationException {
        ConnectionHarness a = open();
        ConnectionHarness b = open();
        byte[] ga = literals(":method", "GET", ":scheme", "http", ":path", "/plaintext", ":authority", "a.example");
        byte[] gb = literals(":method", "GET", ":scheme", "http", ":path", "/nothing-here", ":authority", "b.example");
        a.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM, 1, Arrays.copyOf(ga, 10)));
        a.run();
        assertNotNull(field(h2(a), "block"), "a block in progress is held by its connection");
        b.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM, 1, Arrays.copyOf(gb, 7)));
        b.run();
        b.io.feed(frame(Frames.CONTINUATION, Frames.FLAG_END_HEADERS, 1, Arrays.copyOfRange(gb, 7, gb.length)));
        b.run();
        a.io.feed(frame(Frames.CONTINUATION, Frames.FLAG_END_HEADERS, 1, Arrays.copyOfRange(ga, 10, ga.length)));
        a.run();
        assertTrue(answers(a).contains("0/1/1 Hello, World!"), answers(a));
        assertTrue(answers(b).contains("1/4/1 :status: 404"), answers(b));
        assertIdle(h2(a));
        assertIdle(h2(b));
    }

    @Test
    void aConnectionThatFailsMidBlockGivesItBack() throws ReflectiveOperationException {
        ConnectionHarness h = open();
        h.io.feed(frame(Frames.HEADERS, Frames.FLAG_END_STREAM, 1, Arrays.copyOf(GET, 5)));
        h.run();
        h.io.feed(frame(Frames.PING, 0, 0, new byte[8])); // §6.10: nothing between a block's frames
        h.run();
        assertTrue(answers(h).contains("7/0/0"), "GOAWAY: " + answers(h));
        assertNull(field(h2(h), "block"));
        h.connection.close();
        assertEquals(0, loop.pool().lentCount(), "every buffer is back");
    }

    /**
     * The flood counts are {@code char}s and the window's start the clock's low 32 bits: a count stops at its
     * limit (the next frame is the flood, never a wrap), and a start more than 2^31 ms back (a connection quiet
     * for weeks), whose difference reads negative, begins a new window.
     */
    @Test
    void theSmallFloodFieldsCountAsTheWideOnesDid() throws ReflectiveOperationException {
        Http2Connection c = h2(open());
        Field clock = LoopContext.class.getDeclaredField("nowMillis");
        clock.setAccessible(true);
        long t0 = 1_764_200_000_000L;
        clock.setLong(loop, t0);
        FloodGuard.start(c, t0);
        for (int i = 0; i < 100; i++) { // the default maxPings
            assertTrue(!FloodGuard.note(FloodGuard.PING, c), "ping " + i);
        }
        assertTrue(FloodGuard.note(FloodGuard.PING, c), "the 101st in the window is the flood");
        assertEquals(100, c.pings, "the count stopped at its limit");
        clock.setLong(loop, t0 + 9_999);
        assertTrue(FloodGuard.note(FloodGuard.PING, c), "still the same window");
        clock.setLong(loop, t0 + (1L << 31) + 5_000); // 24.8 days on: the low bits' difference is negative
        assertTrue(!FloodGuard.note(FloodGuard.PING, c), "a new window");
        assertEquals(1, c.pings);
        clock.setLong(loop, t0 + (1L << 31) + 5_000 + 10_000);
        assertTrue(!FloodGuard.note(FloodGuard.PING, c), "and the next one, 10 s on");
        assertEquals(1, c.pings);
    }

    /**
     * The layout's arithmetic (compressed oops and class pointers: a 12-byte header, references of 4 bytes,
     * fields packed into the gaps, the size a multiple of 8): the connection object is 96 bytes, the
     * census's share of it (issue 28: at most 512 B per idle connection in all).
     */
    @Test
    void theConnectionObjectFitsInNinetySixBytes() {
        assertEquals(96, shallowSize(Http2Connection.class));
    }

    static long shallowSize(Class<?> type) {
        long bytes = 12;
        for (Class<?> t = type; t != null; t = t.getSuperclass()) {
            for (Field f : t.getDeclaredFields()) {
                if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                Class<?> k = f.getType();
                bytes += k == long.class || k == double.class ? 8 : k == int.class || k == float.class ? 4
                        : k == short.class || k == char.class ? 2 : k == byte.class || k == boolean.class ? 1 : 4;
            }
        }
        return (bytes + 7) & ~7;
    }
}
