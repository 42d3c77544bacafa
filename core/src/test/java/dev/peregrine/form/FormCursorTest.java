package dev.peregrine.form;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FormCursorTest {
    private static List<String> pairs(String source) {
        FormCursor c = FormCursor.of(source);
        List<String> out = new ArrayList<>();
        while (c.next()) {
            out.add(c.name() + (c.hasValue() ? "=" : "") + c.value());
        }
        return out;
    }

    @Test
    void splitsPairsSkippingEmptyOnesAndDecodesOnDemand() {
        assertEquals(List.of("a=1", "b=x y", "flag", "c=", "=v", "d=e=f"), pairs("a=1&b=x%20y&&flag&c=&=v&d=e=f&"));
        assertEquals(List.of(), pairs(""));
        assertEquals(List.of(), pairs("&&&"));
        assertEquals(List.of("q=a b+c"), pairs("q=a+b%2Bc"));
    }

    @Test
    void decodesUtf8AndLeavesBrokenEscapesAsTheyAre() {
        assertEquals(List.of("é=ü"), pairs("%C3%A9=%c3%bc"));
        assertEquals(List.of("a=%", "b=%4", "c=%zz", "d=%A"), pairs("a=%&b=%4&c=%zz&d=%%41"));
    }

    @Test
    void comparesDecodedNamesAndValuesWithoutDecodingToStrings() {
        FormCursor c = FormCursor.of("na%6De=J%C3%B6rg+M&x=%F0%9F%98%80");
        assertTrue(c.next());
        assertTrue(c.nameIs("name"));
        assertFalse(c.nameIs("nam"));
        assertFalse(c.nameIs("names"));
        assertTrue(c.valueIs("Jörg M"));
        assertFalse(c.valueIs("Jorg M"));
        assertTrue(c.next());
        assertTrue(c.valueIs("😀"));
        assertFalse(c.valueIs("\uD83D")); // a lone surrogate never matches
        assertFalse(c.next());
    }

    @Test
    void decodesIntoACallersArray() {
        FormCursor c = FormCursor.of("k=a%20b");
        assertTrue(c.next());
        byte[] dst = new byte[8];
        assertEquals(3, c.decodeValue(dst, 0));
        assertEquals("a b", new String(dst, 0, 3, StandardCharsets.UTF_8));
        assertEquals(-1, c.decodeValue(new byte[2], 0));
        assertEquals(1, c.decodeName(dst, 7));
    }

    @Test
    void firstAndAllStartFromTheBeginning() {
        FormCursor c = FormCursor.of("a=1&b=2&a=3");
        assertTrue(c.next());
        assertTrue(c.next());
        assertEquals("1", c.first("a"));
        assertEquals(List.of("1", "3"), c.all("a"));
        assertEquals(List.of(), c.all("z"));
        assertNull(c.first("z"));
    }

    @Test
    void readsOnlyTheGivenRangeOfTheBuffer() {
        byte[] bytes = "XXa=1&b=2YY".getBytes(StandardCharsets.US_ASCII);
        FormCursor c = new FormCursor().reset(ByteBuffer.wrap(bytes), 2, 9);
        assertEquals("2", c.first("b"));
        assertEquals(List.of("1"), c.all("a"));
    }

    @Test
    void refusesMoreThanMaxPairs() {
        FormCursor c = FormCursor.of("a&b&c&d").maxPairs(3);
        assertTrue(c.next());
        assertTrue(c.next());
        assertTrue(c.next());
        FormLimitException e = assertThrows(FormLimitException.class, c::next);
        assertEquals(413, e.status());
        assertThrows(IllegalArgumentException.class, () -> c.maxPairs(0));
        assertEquals(List.of("1"), FormCursor.of("&&&&&&a=1").maxPairs(1).all("a")); // empty pairs are not counted
    }
}
