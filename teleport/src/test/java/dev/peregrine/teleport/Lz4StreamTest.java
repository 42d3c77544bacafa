package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;
import dev.peregrine.testing.AllocationMeter;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Lz4Stream} alone: the block layout, blocks cut at the receiver's frame, every split of the input, and no allocation per batch. */
class Lz4StreamTest {
    /** A direct sink that grows, like a connection's batch. */
    private static final class Sink implements OutputSink {
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer all = ByteBuffer.allocateDirect(1 << 22).order(ByteOrder.LITTLE_ENDIAN);

        @Override
        public ByteBuffer out() {
            return buf;
        }

        @Override
        public void drain() {
            buf.flip();
            all.put(buf);
            buf.clear();
        }

        byte[] bytes() {
            drain();
            byte[] b = new byte[all.position()];
            all.get(0, b);
            return b;
        }
    }

    private static byte[] frames(int n) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        for (int i = 1; i <= n; i++) {
            o.writeBytes(TestPeer.request(i, "GET /items/" + i + " HTTP/1.1\r\nHost: t\r\nX-N: " + i * 31 + "\r\n\r\n"));
        }
        return o.toByteArray();
    }

    private static byte[] compress(byte[] plain, int peerMaxFrame) {
        Lz4Stream w = new Lz4Stream(false, true, peerMaxFrame);
        w.plain.append(plain, 0, plain.length);
        Sink s = new Sink();
        w.flush(s);
        return s.bytes();
    }

    /** Decodes {@code z} offered in two pieces split at {@code cut}, as a connection would (the rest kept); returns the plain bytes. */
    private static byte[] decode(byte[] z, int cut) {
        Lz4Stream r = new Lz4Stream(true, false, 1 << 20);
        ByteBuffer held = ByteBuffer.allocateDirect(z.length).order(ByteOrder.LITTLE_ENDIAN);
        java.io.ByteArrayOutputStream plain = new java.io.ByteArrayOutputStream();
        int[] ends = {cut, z.length};
        int from = 0;
        int have = 0;
        for (int end : ends) {
            held.put(have, z, from, end - from);
            have += end - from;
            from = end;
            int pos = 0;
            while (true) {
                int took = r.decode(held, pos, have, Integer.MAX_VALUE);
                assertTrue(took >= 0, "corrupt at cut " + cut);
                if (took == 0) {
                    assertTrue(r.expectedInput() > have - pos, "waits for more than it has");
                    break;
                }
                pos += took;
            }
            byte[] got = new byte[r.in().position()];
            r.in().get(0, got);
            plain.writeBytes(got);
            r.consume(r.in().position());
            byte[] rest = new byte[have - pos];
            held.get(pos, rest);
            held.put(0, rest);
            have -= pos;
        }
        assertEquals(0, have, "nothing left over");
        return plain.toByteArray();
    }

    @Test
    void aBatchIsOneBlockBehindItsTwoLengthsAndDecodesAtEverySplit() {
        byte[] plain = frames(40);
        byte[] z = compress(plain, 1 << 20);
        ByteBuffer b = ByteBuffer.wrap(z);
        assertEquals(z.length - 8, b.getInt(0), "compressed length");
        assertEquals(plain.length, b.getInt(4), "uncompressed length");
        assertTrue(z.length < plain.length / 2, z.length + " bytes for " + plain.length);
        for (int cut = 0; cut <= z.length; cut++) {
            assertEquals(new String(plain, StandardCharsets.ISO_8859_1), new String(decode(z, cut), StandardCharsets.ISO_8859_1), "cut " + cut);
        }
    }

    @Test
    void aBatchAboveTheReceiversFrameIsSeveralBlocks() {
        byte[] plain = frames(400);
        byte[] z = compress(plain, 4096);
        int blocks = 0;
        for (int at = 0; at < z.length; blocks++) {
            ByteBuffer b = ByteBuffer.wrap(z, at, 8);
            int c = b.getInt(at);
            int u = b.getInt(at + 4);
            assertTrue(u <= 4096, "block of " + u);
            at += 8 + c;
        }
        assertEquals((plain.length + 4095) / 4096, blocks);
        assertEquals(new String(plain, StandardCharsets.ISO_8859_1), new String(decode(z, z.length / 3), StandardCharsets.ISO_8859_1));
    }

    /** On direct buffers a batch compresses and decompresses without allocating (the JNI code, or the safe Java code). */
    @Test
    void noAllocationPerBatch() {
        byte[] plain = frames(40);
        Lz4Stream w = new Lz4Stream(false, true, 1 << 20);
        Lz4Stream r = new Lz4Stream(true, false, 1 << 20);
        ByteBuffer out = ByteBuffer.allocateDirect(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
        OutputSink sink = new OutputSink() {
            @Override
            public ByteBuffer out() {
                return out;
            }

            @Override
            public void drain() {
                throw new AssertionError("one batch fits");
            }
        };
        ByteBuffer src = ByteBuffer.allocateDirect(plain.length).put(plain);
        long bytes = AllocationMeter.leastAllocated(50, () -> {
            FrameSink.copy(src, plain.length, w.plain);
            out.clear();
            w.flush(sink);
            int took = r.decode(out, 0, out.position(), Integer.MAX_VALUE);
            if (took != out.position() || r.in().position() != plain.length) {
                throw new AssertionError("round trip");
            }
            r.consume(r.in().position());
        });
        assertEquals(0, bytes, "bytes per batch (native: " + Lz4Library.isNative() + ")");
    }
}
