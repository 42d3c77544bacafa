package dev.peregrine.websocket.codec;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FrameHeaderTest {
    /** A client frame: header (masked with {@code key}) and {@code length} payload bytes of zeros. */
    static byte[] clientFrame(int first, long length, int key, boolean masked) {
        ByteBuffer b = ByteBuffer.allocate(14 + (int) Math.min(length, 70_000));
        b.put((byte) first);
        int maskBit = masked ? 0x80 : 0;
        if (length < 126) {
            b.put((byte) (maskBit | length));
        } else if (length <= 0xFFFF) {
            b.put((byte) (maskBit | 126)).putShort((short) length);
        } else {
            b.put((byte) (maskBit | 127)).putLong(length);
        }
        if (masked) {
            b.putInt(key);
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    @Test
    void everyLengthFormAtEverySplitPoint() {
        for (long len : new long[] {0, 1, 125, 126, 127, 65535, 65536, 1L << 32, Long.MAX_VALUE}) {
            byte[] h = clientFrame(0x81, len, 0x11223344, true);
            ByteBuffer buf = ByteBuffer.allocateDirect(h.length + 8).order(ByteOrder.LITTLE_ENDIAN);
            buf.put(3, h); // not at index 0
            FrameHeader f = new FrameHeader();
            for (int cut = 0; cut < h.length; cut++) {
                assertEquals(FrameHeader.NEED_MORE, f.parse(buf, 3, 3 + cut), "len " + len + " cut " + cut);
            }
            assertEquals(h.length, f.parse(buf, 3, 3 + h.length));
            assertEquals(len, f.payloadLength());
            assertEquals(0x11223344, f.maskKey());
            assertTrue(f.fin());
            assertTrue(f.masked());
            assertEquals(1, f.opcode());
            assertEquals(0, f.rsv());
        }
    }

    @Test
    void headerLengths() {
        FrameHeader f = new FrameHeader();
        assertEquals(6, f.parse(ByteBuffer.wrap(clientFrame(0x89, 125, 1, true)), 0, 6));
        assertEquals(8, f.parse(ByteBuffer.wrap(clientFrame(0x82, 126, 1, true)), 0, 8));
        assertEquals(14, f.parse(ByteBuffer.wrap(clientFrame(0x82, 65536, 1, true)), 0, 14));
        assertEquals(2, f.parse(ByteBuffer.wrap(clientFrame(0x01, 0, 0, false)), 0, 2));
        assertFalse(f.masked());
        assertFalse(f.fin());
        assertEquals(0, f.maskKey());
    }

    @Test
    void reservedBitsAndOpcodesAreReported() {
        FrameHeader f = new FrameHeader();
        byte[] h = clientFrame(0x80 | 0x70 | 0xB, 0, 5, true);
        f.parse(ByteBuffer.wrap(h), 0, h.length);
        assertEquals(7, f.rsv());
        assertEquals(0xB, f.opcode());
        assertTrue(FrameHeader.isControl(0xB));
        assertFalse(FrameHeader.isKnown(0xB));
        for (int op : new int[] {0, 1, 2, 8, 9, 10}) {
            assertTrue(FrameHeader.isKnown(op));
        }
        for (int op : new int[] {3, 4, 5, 6, 7, 11, 12, 13, 14, 15}) {
            assertFalse(FrameHeader.isKnown(op), "op " + op);
        }
    }

    @Test
    void aLengthWithItsTopBitSetIsRefused() {
        byte[] h = clientFrame(0x82, 0, 0, true);
        ByteBuffer b = ByteBuffer.allocate(14);
        b.put((byte) 0x82).put((byte) (0x80 | 127)).putLong(-1L).putInt(0);
        assertEquals(FrameHeader.BAD_LENGTH, new FrameHeader().parse(b, 0, 14));
        assertEquals(6, h.length);
    }

    @Test
    void writerAndParserAgree() {
        for (long len : new long[] {0, 125, 126, 65535, 65536, 1 << 20}) {
            ByteBuffer out = ByteBuffer.allocate(10);
            FrameWriter.putHeader(out, FrameWriter.FIN | FrameHeader.OP_BINARY, len);
            assertEquals(FrameWriter.headerLength(len), out.position());
            FrameHeader f = new FrameHeader();
            assertEquals(out.position(), f.parse(out, 0, out.position()));
            assertEquals(len, f.payloadLength());
            assertFalse(f.masked());
            assertEquals(FrameHeader.OP_BINARY, f.opcode());
        }
        byte[] whole = FrameWriter.frame(FrameWriter.FIN | FrameHeader.OP_TEXT, "hi!".getBytes(), 1, 2);
        assertEquals(4, whole.length);
        assertEquals((byte) 0x81, whole[0]);
        assertEquals(2, whole[1]);
        assertEquals('i', whole[2]);
    }
}
