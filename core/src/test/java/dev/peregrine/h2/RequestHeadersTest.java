package dev.peregrine.h2;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The word-at-a-time checks of field names and values (RFC 9113 §8.2.1) against a byte-by-byte
 * reading of the rule: every byte value at every position of names and values of every length up to
 * three words, at every alignment, in buffers of both byte orders.
 */
class RequestHeadersTest {
    private static boolean tokenByte(int c) {
        return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || "-_.!#$%&'*+^`|~".indexOf(c) >= 0;
    }

    private static boolean referenceName(byte[] a) {
        for (byte x : a) {
            if (!tokenByte(x & 0xff)) {
                return false;
            }
        }
        return true;
    }

    private static boolean referenceValue(byte[] a) {
        for (byte x : a) {
            if (x == 0 || x == '\r' || x == '\n') {
                return false;
            }
        }
        return a.length == 0 || a[0] != ' ' && a[0] != '\t' && a[a.length - 1] != ' ' && a[a.length - 1] != '\t';
    }

    @Test
    void everyByteAtEveryPositionAndAlignment() {
        Random r = new Random(7);
        byte[] nameBytes = "abcdefghijklmnopqrstuvwxyz0123456789-".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            ByteBuffer b = ByteBuffer.allocateDirect(64).order(order);
            for (int len = 0; len <= 24; len++) {
                for (int at = 0; at < len; at++) {
                    for (int v = 0; v < 256; v++) {
                        int offset = r.nextInt(8);
                        byte[] name = new byte[len];
                        byte[] value = new byte[len];
                        for (int i = 0; i < len; i++) {
                            name[i] = nameBytes[r.nextInt(nameBytes.length)];
                            value[i] = (byte) ('!' + r.nextInt(90));
                        }
                        name[at] = (byte) v;
                        value[at] = (byte) v;
                        b.put(offset, name);
                        assertEquals(referenceName(name), RequestHeaders.lowercaseToken(b, offset, offset + len),
                                () -> "name " + java.util.Arrays.toString(name));
                        b.put(offset, value);
                        assertEquals(referenceValue(value), RequestHeaders.validValue(b, offset, offset + len),
                                () -> "value " + java.util.Arrays.toString(value));
                    }
                }
            }
        }
    }
}
