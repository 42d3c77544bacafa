package dev.peregrine.http1;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * {@link ResponseFields}: a text whose bytes repeat at the same position is the same String, and one
 * byte changed anywhere (in a whole word or in the tail the word compare leaves) is a new one, for
 * every length around the word size and both byte orders.
 */
class ResponseFieldsTest {
    @Test
    void aRepeatedTextIsTheSameStringAndAChangeAtAnyByteIsANewOne() {
        for (boolean direct : new boolean[] {true, false}) {
            for (int length = 0; length <= 20; length++) {
                ResponseFields f = new ResponseFields();
                String text = "abcdefghijklmnopqrstuvwxyz".substring(0, length);
                String first = add(f, "Name", text, direct);
                assertEquals(text, first);
                assertSame(first, add(f, "Name", text, direct), "length " + length);
                for (int at = 0; at < length; at++) {
                    char[] c = text.toCharArray();
                    c[at] = '#';
                    String changed = new String(c);
                    String got = add(f, "Name", changed, direct);
                    assertEquals(changed, got);
                    assertNotSame(first, got, "changed at " + at + " of " + length);
                    first = add(f, "Name", text, direct);
                    assertEquals(text, first);
                }
            }
        }
    }

    @Test
    void framingNamesAreKnownInAnyCase() {
        ResponseFields f = new ResponseFields();
        f.clear();
        ByteBuffer b = ByteBuffer.wrap("content-LENGTHTransfer-encodingContent-Lengtx".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(ResponseFields.CONTENT_LENGTH, f.add(b, 0, 14, 0, 0));
        assertEquals(ResponseFields.TRANSFER_ENCODING, f.add(b, 14, 31, 0, 0));
        assertEquals(ResponseFields.OTHER, f.add(b, 31, 45, 0, 0));
    }

    /** The value of a one-field response {@code name: value}, read from a direct or a heap buffer. */
    private static String add(ResponseFields f, String name, String value, boolean direct) {
        byte[] bytes = (name + value).getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer b = direct ? ResponseFeeding.buffer(bytes.length + 8).put(0, bytes) : ByteBuffer.wrap(bytes);
        f.clear();
        f.add(b, 0, name.length(), name.length(), bytes.length);
        return f.values.get(0);
    }
}
