package dev.peregrine.cookie;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CookieCursorTest {
    private static List<String> cookies(CookieCursor c) {
        List<String> out = new ArrayList<>();
        while (c.next()) {
            out.add(c.name() + "=" + c.value());
        }
        return out;
    }

    @Test
    void parsesAsBrowsersSend() {
        assertEquals(List.of("a=1", "b=two", "flag=", "c=d=e", "sp=x y"),
                cookies(CookieCursor.of("a=1; b=\"two\";flag; =x; c=d=e;\t sp = x y ;;")));
        assertEquals(List.of(), cookies(CookieCursor.of("")));
        assertEquals(List.of(), cookies(CookieCursor.of(" ; ;")));
        assertEquals(List.of("q=\""), cookies(CookieCursor.of("q=\""))); // a lone DQUOTE is kept
    }

    @Test
    void keepsBytesOutsideCookieOctetRatherThanDroppingTheCookie() {
        assertEquals(List.of("a=x,y", "b=ü"),
                cookies(CookieCursor.of(new String("a=x,y; b=ü".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1))));
    }

    @Test
    void readsSeveralFieldsInOrderAndNamesAreCaseSensitive() {
        byte[] bytes = "a=1; b=2|B=3; a=4".getBytes(StandardCharsets.US_ASCII);
        CookieCursor c = new CookieCursor().reset(ByteBuffer.wrap(bytes)).add(0, 8).add(9, bytes.length);
        assertEquals(List.of("a=1", "b=2", "B=3", "a=4"), cookies(c));
        assertEquals("1", c.first("a"));
        assertEquals("3", c.first("B"));
        assertNull(c.first("A"));
        c.rewind();
        assertTrue(c.next());
        assertTrue("a".contentEquals(c.nameView()));
        assertTrue("1".contentEquals(c.valueView()));
    }
}
