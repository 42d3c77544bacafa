package dev.peregrine.h2;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an idle connection keeps of its streams (issue 28's census: at most 512 B a connection): no
 * array and no {@link Http2Stream} once the last stream closes, those lent back by the loop at the
 * next open (so a request allocates nothing), and the ids closed lately remembered in a bitmap.
 */
class Http2StreamsMemoryTest {
    private static Http2Connection connection(Http2Loop loop) {
        Http2Connection conn = new Http2Connection(Http2Settings.DEFAULTS, (Http2Upgrade) null);
        conn.shared = loop;
        return conn;
    }

    private static Object field(Object o, String name) throws ReflectiveOperationException {
        Field f = o.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    @Test
    void anIdleConnectionHoldsNoStreamNorArray() throws ReflectiveOperationException {
        Http2Connection conn = connection(new Http2Loop(null));
        Streams streams = conn.streams;
        assertNull(field(streams, "open"), "nothing before the first stream");
        Http2Stream s = streams.open(conn, 1, 65_535, 65_535);
        assertSame(s, streams.get(1));
        streams.close(conn, s);
        assertEquals(0, streams.count());
        assertNull(field(streams, "open"), "the array went back to the loop");
    }

    @Test
    void theLoopLendsTheSameStreamAndArrayAgain() throws ReflectiveOperationException {
        Http2Loop loop = new Http2Loop(null);
        Http2Connection a = connection(loop);
        Http2Connection b = connection(loop);
        Http2Stream s1 = a.streams.open(a, 1, 100, 200);
        Object array = field(a.streams, "open");
        a.streams.close(a, s1);
        Http2Stream s2 = b.streams.open(b, 3, 300, 400);
        assertSame(s1, s2, "a closed stream is reused by any connection of the loop");
        assertSame(array, field(b.streams, "open"));
        assertEquals(3, s2.id);
        assertEquals(300, s2.sendWindow);
        assertEquals(-1, s2.declaredLength, "reset on reuse");
        assertNull(a.streams.get(1));
    }

    @Test
    void manyOpenStreamsGrowTheArrayAndAllComeBack() {
        Http2Loop loop = new Http2Loop(null);
        Http2Connection conn = connection(loop);
        Http2Stream[] opened = new Http2Stream[30]; // ids 1..59: all within the 64 remembered
        for (int i = 0; i < opened.length; i++) {
            opened[i] = conn.streams.open(conn, 2 * i + 1, 1, 1);
        }
        assertEquals(30, conn.streams.count());
        for (int i = 0; i < opened.length; i++) {
            assertSame(opened[i], conn.streams.get(2 * i + 1));
            assertSame(opened[i], conn.streams.at(i), "in the order they opened");
        }
        for (int i = opened.length - 1; i >= 0; i -= 2) { // out of order
            conn.streams.close(conn, opened[i]);
        }
        for (int i = opened.length - 2; i >= 0; i -= 2) {
            conn.streams.close(conn, opened[i]);
        }
        assertEquals(0, conn.streams.count());
        for (int i = 0; i < opened.length; i++) {
            assertTrue(conn.streams.recentlyClosed(2 * i + 1), "id " + (2 * i + 1));
        }
        Http2Stream again = conn.streams.open(conn, 101, 1, 1);
        assertTrue(java.util.Arrays.asList(opened).contains(again), "spare streams lent again");
    }

    @Test
    void recentlyClosedRemembersTheLast64Ids() {
        Http2Connection conn = connection(new Http2Loop(null));
        Streams streams = conn.streams;
        assertFalse(streams.recentlyClosed(1));
        streams.noteClosed(5);
        assertTrue(streams.recentlyClosed(5));
        assertFalse(streams.recentlyClosed(1), "never closed");
        assertFalse(streams.recentlyClosed(3));
        assertFalse(streams.recentlyClosed(7), "above every closed id");
        streams.noteClosed(1); // below the top, within the window
        assertTrue(streams.recentlyClosed(1));
        streams.noteClosed(65); // 1 is 64 below: forgotten; 5 is 60 below: kept
        assertTrue(streams.recentlyClosed(65));
        assertTrue(streams.recentlyClosed(5));
        assertFalse(streams.recentlyClosed(1));
        streams.noteClosed(1_000_001); // far above: everything before is forgotten
        assertTrue(streams.recentlyClosed(1_000_001));
        assertFalse(streams.recentlyClosed(65));
        streams.noteClosed(Integer.MAX_VALUE);
        assertTrue(streams.recentlyClosed(Integer.MAX_VALUE));
        assertFalse(streams.recentlyClosed(1_000_001));
        streams.noteClosed(Integer.MAX_VALUE - 62);
        assertTrue(streams.recentlyClosed(Integer.MAX_VALUE - 62), "62 below the top: within the window");
        streams.noteClosed(1); // 2^31 below the top: not remembered, and no overflow
        assertFalse(streams.recentlyClosed(1));
    }

    @Test
    void theSpareStreamsAreBounded() {
        SpareStreams spare = new SpareStreams();
        java.util.Set<Http2Stream> given = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i < SpareStreams.MAX_STREAMS + 10; i++) {
            Http2Stream s = new Http2Stream();
            given.add(s);
            spare.give(s);
        }
        int kept = 0;
        for (int i = 0; i < SpareStreams.MAX_STREAMS + 10; i++) {
            if (given.contains(spare.stream())) {
                kept++;
            }
        }
        assertEquals(SpareStreams.MAX_STREAMS, kept, "the ones past the bound went to the GC");
        for (int i = 0; i < SpareStreams.MAX_ARRAYS + 5; i++) {
            spare.give(new Http2Stream[8]);
        }
        assertEquals(8, spare.array(3).length, "a kept array, whatever the length asked");
    }
}
