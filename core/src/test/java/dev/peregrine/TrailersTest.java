package dev.peregrine;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Trailers}: a read-only list of fields, looked up as headers are (case-insensitive, first wins). */
class TrailersTest {
    @Test
    void readsByIndexAndByNameCaseInsensitively() {
        Trailers t = Trailers.of("Checksum", "abc", "x-n", "1", "X-N", "2");
        assertEquals(3, t.size());
        assertEquals("Checksum", t.name(0));
        assertEquals("abc", t.value(0));
        assertEquals("abc", t.get("checksum"));
        assertEquals("1", t.get("X-N"));
        assertEquals(List.of("1", "2"), t.all("x-n"));
        assertNull(t.get("absent"));
        assertEquals(List.of(), t.all("absent"));
        assertEquals("Trailers[Checksum: abc, x-n: 1, X-N: 2]", t.toString());
        assertEquals(Trailers.of("Checksum", "abc", "x-n", "1", "X-N", "2"), t);
    }

    /** Trailers read as any {@link Headers}: the same answers through the interface. */
    @Test
    void readsAsHeaders() {
        Headers h = Trailers.of("Checksum", "abc", "x-n", "1", "X-N", "2");
        assertEquals("abc", h.view("CHECKSUM").toString());
        assertTrue(h.has("x-N"));
        assertTrue(!h.has("absent"));
        assertNull(h.view("absent"));
        assertEquals(List.of("1", "2"), h.all("X-n"));
        assertEquals("X-N", h.name(2).toString());
        assertEquals("2", h.value(2).toString());
        assertThrows(IndexOutOfBoundsException.class, () -> h.name(3));
        assertThrows(IndexOutOfBoundsException.class, () -> h.value(-1));
        assertTrue(!Trailers.EMPTY.has("x"));
    }

    @Test
    void noneIsEmpty() {
        assertSame(Trailers.EMPTY, Trailers.of());
        assertTrue(Trailers.EMPTY.isEmpty());
        assertEquals(0, Trailers.EMPTY.size());
    }

    @Test
    void mistakesFailAtTheCall() {
        assertThrows(IllegalArgumentException.class, () -> Trailers.of("odd"));
        assertThrows(NullPointerException.class, () -> Trailers.of("a", null));
        assertThrows(IndexOutOfBoundsException.class, () -> Trailers.of("a", "b").name(1));
        String[] mine = {"a", "b"};
        Trailers t = Trailers.of(mine);
        mine[1] = "changed";
        assertEquals("b", t.value(0), "a copy: the caller's array is not kept");
    }
}
