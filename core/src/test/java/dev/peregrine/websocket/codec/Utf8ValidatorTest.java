package dev.peregrine.websocket.codec;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Utf8ValidatorTest {
    private static byte[] hex(String h) {
        String[] parts = h.trim().split(" ");
        byte[] b = new byte[parts.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        return b;
    }

    /** What the JDK's strict decoder says. */
    private static boolean jdk(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** Valid split at every byte, in a direct buffer, must give the same answer as whole. */
    private static boolean everySplit(byte[] b) {
        ByteBuffer d = ByteBuffer.allocateDirect(b.length).put(0, b);
        Utf8Validator whole = new Utf8Validator();
        boolean expected = whole.feed(d, 0, b.length) && whole.complete();
        for (int cut = 0; cut <= b.length; cut++) {
            Utf8Validator v = new Utf8Validator();
            boolean ok = v.feed(d, 0, cut) && v.feed(d, cut, b.length) && v.complete();
            assertEquals(expected, ok, "cut " + cut);
        }
        return expected;
    }

    @Test
    void knownSequences() {
        assertTrue(everySplit("κόσμε hello, world: 8 bytes of ascii and more".getBytes(StandardCharsets.UTF_8)));
        assertTrue(everySplit(hex("f4 8f bf bf")));             // U+10FFFF
        assertTrue(everySplit(hex("ef bf bf")));                // U+FFFF
        assertTrue(everySplit(hex("ed 9f bf")));                // U+D7FF
        assertFalse(everySplit(hex("ed a0 80")));               // U+D800, a surrogate
        assertFalse(everySplit(hex("f4 90 80 80")));            // past U+10FFFF
        assertFalse(everySplit(hex("c0 af")));                  // overlong '/'
        assertFalse(everySplit(hex("e0 80 af")));               // overlong
        assertFalse(everySplit(hex("f0 80 80 af")));            // overlong
        assertFalse(everySplit(hex("80")));                     // lone continuation
        assertFalse(everySplit(hex("f8 88 80 80 80")));         // 5-byte form
        assertFalse(everySplit(hex("ce ba e1 bd")));            // truncated at the end
        assertFalse(everySplit(hex("ff")));
    }

    @Test
    void failsAtTheFirstBadByte() {
        byte[] b = "κόσμε".getBytes(StandardCharsets.UTF_8);
        byte[] bad = new byte[b.length + 10];
        System.arraycopy(b, 0, bad, 0, b.length);
        bad[b.length] = (byte) 0xC0; // invalid as any lead byte
        Utf8Validator v = new Utf8Validator();
        assertTrue(v.feed(bad, 0, b.length));
        assertFalse(v.feed(bad, b.length, b.length + 1));
        assertFalse(v.feed(bad, 0, 1)); // stays failed
    }

    @Test
    void agreesWithTheJdkOnRandomBytes() {
        Random r = new Random(11);
        for (int i = 0; i < 20_000; i++) {
            byte[] b = new byte[r.nextInt(24)];
            for (int j = 0; j < b.length; j++) {
                // mostly bytes that make valid-looking sequences
                b[j] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : 0x80 + r.nextInt(0x80));
            }
            if (r.nextBoolean()) {
                b = String.valueOf((char) r.nextInt(0x10000)).getBytes(StandardCharsets.UTF_8);
            }
            ByteBuffer d = ByteBuffer.allocateDirect(b.length).put(0, b);
            assertEquals(jdk(b), Utf8Validator.isValid(d, 0, b.length), java.util.Arrays.toString(b));
        }
    }

    /**
     * Long ASCII runs (the 32- and 8-byte steps) with one bad or multi-byte sequence at every offset
     * of every length up to 100 bytes, whole and split at every byte, beside the JDK's decoder.
     */
    @Test
    void asciiRunsWithASequenceAtEveryOffset() {
        byte[][] inserts = {hex("ff"), hex("c3 a9"), hex("e2 82 ac"), hex("f0 9f 98 80"), hex("80"), hex("ed a0 80"), hex("c3")};
        for (int n = 0; n <= 100; n += (n < 70 ? 1 : 7)) {
            for (byte[] insert : inserts) {
                for (int at = 0; at <= n; at++) {
                    byte[] b = new byte[n + insert.length];
                    java.util.Arrays.fill(b, (byte) 'a');
                    System.arraycopy(insert, 0, b, at, insert.length);
                    assertEquals(jdk(b), everySplit(b), "length " + n + " insert at " + at);
                }
            }
        }
    }
}
