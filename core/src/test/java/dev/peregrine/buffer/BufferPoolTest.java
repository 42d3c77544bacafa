package dev.peregrine.buffer;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link BufferPool}: size classes, reuse, the lent counters that prove every buffer came back. */
class BufferPoolTest {

    @Test
    void sizeClassesArePowersOfTwoFrom4KiB() {
        assertEquals(0, BufferPool.sizeClass(1));
        assertEquals(0, BufferPool.sizeClass(4096));
        assertEquals(1, BufferPool.sizeClass(4097));
        assertEquals(1, BufferPool.sizeClass(8192));
        assertEquals(4096, BufferPool.capacityFor(0));
        assertEquals(8192, BufferPool.capacityFor(5000));
        assertEquals(1 << 20, BufferPool.capacityFor((1 << 19) + 1));
    }

    @Test
    void lendsDirectLittleEndianClearedBuffersAndReusesThem() {
        BufferPool pool = new BufferPool(1 << 20, 4);
        ByteBuffer a = pool.acquire(100);
        assertTrue(a.isDirect());
        assertEquals(ByteOrder.LITTLE_ENDIAN, a.order());
        assertEquals(4096, a.capacity());
        assertEquals(1, pool.lentCount());
        assertEquals(4096, pool.lentBytes());
        a.position(10).limit(20);
        pool.release(a);
        assertEquals(0, pool.lentCount());
        assertEquals(0, pool.lentBytes());
        assertEquals(4096, pool.freeBytes());
        ByteBuffer b = pool.acquire(4000);
        assertSame(a, b);
        assertEquals(0, b.position());
        assertEquals(b.capacity(), b.limit());
        assertEquals(0, pool.freeBytes());
        pool.release(null);
        assertEquals(1, pool.lentCount());
    }

    @Test
    void keepsAtMostRetainPerClassAndNothingAboveTheRetainLimit() {
        BufferPool pool = new BufferPool(8 << 20, 2);
        ByteBuffer[] lent = {pool.acquire(1), pool.acquire(1), pool.acquire(1)};
        for (ByteBuffer b : lent) {
            pool.release(b);
        }
        assertEquals(2 * 4096, pool.freeBytes());
        ByteBuffer huge = pool.acquire(BufferPool.RETAIN_LIMIT + 1);
        assertEquals(2 << 20, huge.capacity());
        pool.release(huge);
        assertEquals(2 * 4096, pool.freeBytes(), "a buffer above the retain limit is dropped");
        assertNotSame(huge, pool.acquire(BufferPool.RETAIN_LIMIT + 1));
        pool.clear();
        assertEquals(0, pool.freeBytes());
    }

    @Test
    void servesSizesAboveItsMaximumUnpooled() {
        BufferPool pool = new BufferPool(16 * 1024, 4);
        ByteBuffer b = pool.acquire(100_000);
        assertTrue(b.capacity() >= 100_000);
        pool.release(b);
        assertEquals(0, pool.lentCount());
        assertEquals(0, pool.freeBytes());
        assertEquals(16 * 1024, pool.maxBufferSize());
    }

    @Test
    void growKeepsTheBytesAndReturnsTheOldBuffer() {
        BufferPool pool = new BufferPool(1 << 20, 4);
        ByteBuffer small = pool.acquire(10);
        for (int i = 0; i < 4096; i++) {
            small.put(i, (byte) i);
        }
        ByteBuffer big = pool.grow(small, 96, 4000, 8192);
        assertEquals(8192, big.capacity());
        for (int i = 0; i < 4000; i++) {
            assertEquals((byte) (i + 96), big.get(i));
        }
        assertEquals(1, pool.lentCount());
        assertEquals(4096, pool.freeBytes());
        pool.release(big);
        assertEquals(0, pool.lentCount());
    }

    @Test
    void steadyStateLendingAllocatesNothing() {
        BufferPool pool = new BufferPool(1 << 20, 4);
        for (int i = 0; i < 1000; i++) {
            pool.release(pool.acquire(i * 64));
        }
        long allocated = dev.peregrine.testing.AllocationMeter.leastAllocated(3, () -> {
            for (int i = 0; i < 10_000; i++) {
                pool.release(pool.acquire(i % 60_000));
            }
        });
        assertTrue(allocated < 1024, "allocated " + allocated);
    }
}
