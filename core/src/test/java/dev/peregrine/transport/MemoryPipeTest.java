package dev.peregrine.transport;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MemoryPipe}'s ring, the part the end-to-end tests ({@code InMemoryDialerTest} in the client) cannot
 * aim at: bytes in order across the wrap-around at every offset, a full ring taking part of a write, end of
 * stream only after the bytes, and writes to a closed reader failing.
 */
class MemoryPipeTest {
    private static final int N = MemoryPipe.RING_BYTES;

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    @Test
    void bytesComeOutInOrderAcrossTheWrapAtEveryOffset() throws IOException {
        for (int offset : new int[] {0, 1, 7, N / 2, N - 1}) {
            MemoryPipe.Ring ring = new MemoryPipe.Ring();
            // Move the head to offset: fill and drain that many bytes first.
            if (offset > 0) {
                assertEquals(offset, ring.put(ByteBuffer.wrap(new byte[offset])));
                assertEquals(offset, ring.take(ByteBuffer.allocateDirect(offset)));
            }
            byte[] data = pattern(N, offset);
            ByteBuffer src = ByteBuffer.allocateDirect(N + 100).put(data).put(new byte[100]).flip();
            assertEquals(N, ring.put(src), "a full ring takes what fits");
            assertEquals(100, src.remaining());
            assertFalse(ring.hasRoom());
            assertEquals(0, ring.put(src));
            ByteBuffer dst = ByteBuffer.allocateDirect(N);
            while (dst.hasRemaining()) {
                ByteBuffer part = dst.slice().limit(Math.min(dst.remaining(), 333));
                int n = ring.take(part);
                assertTrue(n > 0);
                dst.position(dst.position() + n);
            }
            byte[] out = new byte[N];
            dst.flip().get(out);
            assertArrayEquals(data, out, "offset " + offset);
            assertTrue(ring.hasRoom());
            assertEquals(0, ring.take(ByteBuffer.allocate(10)), "empty, not ended");
        }
    }

    @Test
    void endOfStreamComesAfterTheBytesAndAClosedReaderRefusesWrites() {
        MemoryPipe.Ring ring = new MemoryPipe.Ring();
        assertEquals(3, assertDoesNotThrowPut(ring, "abc"));
        ring.end();
        assertTrue(ring.readable());
        assertEquals(3, ring.take(ByteBuffer.allocate(10)));
        assertEquals(-1, ring.take(ByteBuffer.allocate(10)));
        assertTrue(ring.readable(), "end of stream stays readable, as on a socket");

        MemoryPipe.Ring reset = new MemoryPipe.Ring();
        assertEquals(1, assertDoesNotThrowPut(reset, "x"));
        reset.readerClosed();
        IOException e = assertThrows(IOException.class, () -> reset.put(ByteBuffer.wrap(new byte[1])));
        assertTrue(e.getMessage().contains("reset"), e.getMessage());
        assertTrue(reset.hasRoom(), "a writer waiting for room hears of the reset");
    }

    private static int assertDoesNotThrowPut(MemoryPipe.Ring ring, String s) {
        try {
            return ring.put(ByteBuffer.wrap(s.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
