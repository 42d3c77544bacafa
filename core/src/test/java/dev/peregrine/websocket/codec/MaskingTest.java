package dev.peregrine.websocket.codec;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

class MaskingTest {
    @Test
    void wordAtATimeMatchesTheRfcsDefinitionForEveryOffsetLengthAndOrder() {
        Random r = new Random(7);
        int key = 0x37FA213D; // RFC 6455 §5.7's example key
        for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
            for (int len = 0; len < 40; len++) {
                for (int start = 0; start < 9; start++) {
                    for (int offset = 0; offset < 8; offset++) {
                        byte[] data = new byte[len];
                        r.nextBytes(data);
                        ByteBuffer b = ByteBuffer.allocateDirect(start + len + 3).order(order);
                        b.put(start, data);
                        Masking.unmask(b, start, start + len, key, offset);
                        for (int i = 0; i < len; i++) {
                            int k = (key >>> (24 - ((offset + i) % 4) * 8)) & 0xFF;
                            assertEquals((byte) (data[i] ^ k), b.get(start + i), "len " + len + " start " + start + " off " + offset);
                        }
                    }
                }
            }
        }
    }

    @Test
    void theRfcsExample() {
        // §5.7: a masked "Hello": 0x81 0x85 0x37 0xfa 0x21 0x3d 0x7f 0x9f 0x4d 0x51 0x58
        ByteBuffer b = ByteBuffer.wrap(new byte[] {0x7f, (byte) 0x9f, 0x4d, 0x51, 0x58});
        Masking.unmask(b, 0, 5, 0x37FA213D, 0);
        assertEquals("Hello", new String(b.array()));
    }

    @Test
    void inPiecesEqualsAtOnce() {
        byte[] data = new byte[1000];
        new Random(3).nextBytes(data);
        ByteBuffer whole = ByteBuffer.allocateDirect(1000).order(ByteOrder.LITTLE_ENDIAN).put(0, data);
        Masking.unmask(whole, 0, 1000, 0xA1B2C3D4, 0);
        for (int cut = 0; cut <= 1000; cut += 37) {
            ByteBuffer pieces = ByteBuffer.allocateDirect(1000).order(ByteOrder.LITTLE_ENDIAN).put(0, data);
            Masking.unmask(pieces, 0, cut, 0xA1B2C3D4, 0);
            Masking.unmask(pieces, cut, 1000, 0xA1B2C3D4, cut);
            assertEquals(whole, pieces);
        }
    }
}
