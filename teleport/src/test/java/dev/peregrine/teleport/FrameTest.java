package dev.peregrine.teleport;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

class FrameTest {
    private static final int MAX = 4096;

    private static byte[] frame(int length, int id, byte type) {
        ByteBuffer b = ByteBuffer.allocate(Frame.HEADER + length);
        Frame.writeHeader(b, length, id, type);
        for (int i = 0; i < length; i++) {
            b.put((byte) ('a' + i % 26));
        }
        return b.array();
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }

    /** Decodes a stream the way a connection offers it: whatever is there, the rest kept. Returns "type:id:len" per frame, or the error last. */
    static List<String> decode(byte[] stream, int[] cuts) {
        List<String> out = new ArrayList<>();
        ByteBuffer held = ByteBuffer.allocate(stream.length);
        int from = 0;
        int c = 0;
        while (from < stream.length) {
            int to = c < cuts.length ? Math.max(from, Math.min(stream.length, cuts[c++])) : stream.length;
            held.put(stream, from, to - from);
            from = to;
            int pos = 0;
            int end = held.position();
            while (true) {
                int r = Frame.check(held, pos, end, MAX);
                if (r == Frame.NEED_MORE) {
                    break;
                }
                if (r < 0) {
                    out.add("error " + r);
                    return out;
                }
                out.add(Frame.typeName(Frame.type(held, pos)) + ":" + Frame.id(held, pos) + ":" + Frame.length(held, pos));
                pos = r;
            }
            held.flip().position(pos);
            held.compact();
        }
        if (held.position() > 0) {
            out.add("incomplete " + held.position());
        }
        return out;
    }

    @Test
    void everySplitPointGivesTheSameFrames() {
        byte[] stream = concat(frame(30, 1, Frame.REQUEST), frame(0, 7, Frame.CANCEL), frame(1, 9, Frame.PING),
                frame(0, 2, Frame.PING), frame(100, -1, Frame.RESPONSE), frame(5, 3, Frame.GOAWAY));
        List<String> whole = decode(stream, new int[0]);
        assertEquals(List.of("REQUEST:1:30", "CANCEL:7:0", "PING:9:1", "PING:2:0", "RESPONSE:-1:100", "GOAWAY:3:5"), whole);
        for (int i = 0; i <= stream.length; i++) {
            assertEquals(whole, decode(stream, new int[] {i}), "split at " + i);
            for (int j = i; j <= stream.length; j += 7) {
                assertEquals(whole, decode(stream, new int[] {i, j}), "split at " + i + ", " + j);
            }
        }
        int[] bytes = new int[stream.length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = i + 1;
        }
        assertEquals(whole, decode(stream, bytes), "byte by byte");
    }

    @Test
    void theWireIsBigEndianWhateverTheBufferOrder() {
        ByteBuffer le = ByteBuffer.allocateDirect(32).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        Frame.putHeader(le, 0, 2, 0x01020304, Frame.RESPONSE);
        assertEquals(0, le.get(0));
        assertEquals(2, le.get(3));
        assertEquals(1, le.get(4));
        assertEquals(4, le.get(7));
        assertEquals(2, Frame.length(le, 0));
        assertEquals(0x01020304, Frame.id(le, 0));
        assertEquals(11, Frame.check(le, 0, 11, MAX));
    }

    @Test
    void badInputIsJudgedFromTheHeaderAlone() {
        ByteBuffer b = ByteBuffer.wrap(frame(0, 1, Frame.REQUEST));
        b.putInt(0, MAX + 1);
        assertEquals(Frame.TOO_LARGE, Frame.check(b, 0, Frame.HEADER, MAX), "oversized before its payload");
        b.putInt(0, -1);
        assertEquals(Frame.TOO_LARGE, Frame.check(b, 0, Frame.HEADER, MAX), "length is unsigned");
        b.putInt(0, 0);
        for (int t : new int[] {0, 6, 127, -1}) {
            b.put(8, (byte) t);
            assertEquals(Frame.BAD_TYPE, Frame.check(b, 0, Frame.HEADER, MAX), "type " + t);
        }
        assertEquals(Frame.BAD_TYPE, Frame.check(ByteBuffer.wrap(frame(1, 1, Frame.CANCEL)), 0, 10, MAX));
        assertEquals(Frame.BAD_TYPE, Frame.check(ByteBuffer.wrap(frame(2, 1, Frame.PING)), 0, 11, MAX));
        assertEquals(Frame.BAD_TYPE, Frame.check(ByteBuffer.wrap(frame(Frame.MAX_GOAWAY_REASON + 1, 1, Frame.GOAWAY)), 0, 9, 1 << 20));
        assertEquals(Frame.NEED_MORE, Frame.check(b, 0, Frame.HEADER - 1, MAX));
        assertEquals(MAX + Frame.HEADER, Frame.check(ByteBuffer.wrap(frame(MAX, 1, Frame.REQUEST)), 0, MAX + Frame.HEADER, MAX));
    }

    /**
     * Fuzz-style: random streams of valid frames, with random bytes flipped, cut at random places: the
     * decoder never throws, never loops, and gives the same frames (or the same error at the same
     * place) whatever the cuts.
     */
    @Test
    void randomizedStreamsDecodeTheSameWhateverTheCuts() {
        Random rnd = new Random(26);
        for (int round = 0; round < 3000; round++) {
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            int frames = 1 + rnd.nextInt(6);
            for (int f = 0; f < frames; f++) {
                byte type = (byte) (1 + rnd.nextInt(5));
                int len = type == Frame.CANCEL ? 0 : type == Frame.PING ? rnd.nextInt(2) : rnd.nextInt(200);
                o.writeBytes(frame(len, rnd.nextInt(), type));
            }
            byte[] stream = o.toByteArray();
            int flips = rnd.nextInt(3);
            for (int i = 0; i < flips; i++) {
                stream[rnd.nextInt(stream.length)] = (byte) rnd.nextInt(256);
            }
            List<String> whole = decode(stream, new int[0]);
            int[] cuts = new int[1 + rnd.nextInt(8)];
            for (int i = 0; i < cuts.length; i++) {
                cuts[i] = rnd.nextInt(stream.length + 1);
            }
            java.util.Arrays.sort(cuts);
            assertEquals(whole, decode(stream, cuts), "round " + round);
        }
    }
}
