package dev.peregrine.transport.iouring;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringBufferRingAllocator;
import io.netty.channel.uring.IoUringBufferRingConfig;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import io.netty.channel.unix.Buffer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One loop's provided-buffer ring: the buffers a multishot {@code IORING_OP_RECV} with
 * {@code IOSQE_BUFFER_SELECT} fills. The kernel takes a buffer from the ring for each completion and
 * names it in the completion's flags ({@code flags >> 16}); the endpoint copies the bytes out when its
 * connection reads, and the buffer goes back to the ring at once ({@link #recycle}).
 *
 * <p><b>Who does what.</b> Netty 4.2.18 registers the ring with the kernel
 * ({@code IORING_REGISTER_PBUF_RING}, through the public {@link IoUringIoHandlerConfig#setBufferRingConfig})
 * and fills it once at the loop's start from our {@link IoUringBufferRingAllocator}, which hands out
 * slices of this ring's slab in order (buffer id {@code i} is slice {@code i}). From then on this class
 * alone writes the ring: Netty's own consumer ({@code IoUringBufferRing.useBuffer}, which slices a
 * {@code ByteBuf} per completion and refills from the allocator) is package-private and allocates, and
 * no Netty channel exists here to call it. The ring's memory is reached once, on the loop thread, through
 * the package-private {@code IoUringIoHandler.findBufferRing} and the private field
 * {@code IoUringBufferRing.ioUringBufRing} ({@code privateLookupIn}: allowed on the class path, where
 * Netty's packages are open to us; on the module path only with
 * {@code --add-opens io.netty.transport.classes.io_uring/io.netty.channel.uring=dev.peregrine}). Where
 * that or the kernel's support is missing, {@link #create} returns null after one INFO line and
 * connections receive with a poll and {@code recv}, as before.
 *
 * <p><b>Layout</b> ({@code struct io_uring_buf_ring}, {@code include/uapi/linux/io_uring.h}): 16-byte
 * entries; the tail shares the first entry's last two bytes.
 * <pre>
 *   entry i:  0 addr (u64) | 8 len (u32) | 12 bid (u16) | 14 resv (u16; entry 0: the ring's tail)
 *   slab:     [ bid 0: BUFFER_SIZE ][ bid 1 ] ... [ bid count-1 ]     (count * BUFFER_SIZE bytes)
 * </pre>
 * The kernel consumes entries from its head; {@link #recycle} writes entry {@code tail & mask} and
 * publishes it by a release store of {@code tail + 1}.
 *
 * <p><b>Memory bound.</b> {@code count * BUFFER_SIZE} per loop (256 x 16 KiB = 4 MiB by default,
 * {@code LoopConfig.recvRingBuffers}),
 * allocated when the loop starts and kept until it ends. It is not lent by the loop's
 * {@code BufferPool}: the pool lends to connections and counts every buffer back, while these belong to
 * the ring for the loop's life. A connection holds a buffer only from its completion until its
 * connection has read it (at once, unless it paused reading); an idle connection holds none.
 *
 * <p>Thread: {@link #create} and {@link #factory} on the thread making the loop; the rest on the loop.
 */
final class RecvRing {
    /** Bytes of one buffer: a completion carries at most this much. */
    static final int BUFFER_SIZE = 16 << 10;
    /** The buffer group every receive of this loop names (one ring per loop). */
    static final short GROUP = 0;

    private static final int ENTRY_BYTES = 16;
    private static final int OFF_ADDR = 0;
    private static final int OFF_LEN = 8;
    private static final int OFF_BID = 12;
    private static final int OFF_TAIL = 14;
    private static final VarHandle SHORT = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.nativeOrder());
    private static final System.Logger LOG = System.getLogger("dev.peregrine");

    private final int count;
    private final int mask;
    private final ByteBuffer slab;
    private final long slabAddress;
    /** One view per buffer id (made once: reading a completion allocates nothing). */
    private final ByteBuffer[] views;
    /**
     * The connections' queues of filled buffers not read yet, linked through the buffers: the bytes in
     * each buffer, and the next buffer of the same connection's queue (-1: its last). A buffer is in at
     * most one queue, so a connection needs only its queue's first and last id, and no object.
     */
    private final int[] lengths;
    private final int[] next;
    private int handedOut;
    private volatile IoUringIoHandler handler;
    /** Netty's mapping of the kernel's ring, found at the first {@link #attach}; null before or when it failed. */
    private ByteBuffer ring;
    private boolean attachFailed;
    private short tail;
    /** Buffers the kernel may fill now (in the ring, not yet named by a completion). */
    private int inRing;

    private RecvRing(int count) {
        this.count = count;
        this.mask = count - 1;
        this.slab = ByteBuffer.allocateDirect(count * BUFFER_SIZE);
        this.slabAddress = Buffer.memoryAddress(slab);
        this.views = new ByteBuffer[count];
        this.lengths = new int[count];
        this.next = new int[count];
        for (int i = 0; i < count; i++) {
            views[i] = slab.slice(i * BUFFER_SIZE, BUFFER_SIZE);
        }
    }

    /**
     * A ring of {@code n} buffers (rounded up to a power of two, 2 to 16384: Netty takes the size as a {@code short}) for one loop, or null (receive
     * then polls and reads): {@code n} is 0 ({@code LoopConfig.recvRingBuffers}, the server's
     * {@code ioUringRecvBuffers}), or the kernel or the access it needs is missing (one INFO line, once
     * per JVM).
     */
    static RecvRing create(int n) {
        if (n <= 0) {
            return null;
        }
        String why = Access.UNAVAILABLE;
        if (why == null && !IoUring.isRegisterBufferRingSupported()) {
            why = "the kernel has no provided-buffer rings (5.19+)";
        }
        if (why == null && !IoUring.isRecvMultishotEnabled()) {
            why = "the kernel has no multishot receive (6.0+)";
        }
        if (why != null) {
            sayOnce(why);
            return null;
        }
        n = Math.max(2, Math.min(16384, Integer.highestOneBit(n - 1) << 1));
        return new RecvRing(n);
    }

    private static volatile boolean said;

    private static void sayOnce(String why) {
        if (!said) {
            said = true;
            LOG.log(System.Logger.Level.INFO, "io_uring: no multishot receive into a provided-buffer ring (" + why
                    + "); connections receive with a poll and recv");
        }
    }

    /**
     * Netty's handler factory with this ring configured ({@link #count} buffers of {@link #BUFFER_SIZE},
     * all filled at the start, not incremental), remembering the handler it makes.
     */
    IoHandlerFactory factory() {
        IoUringBufferRingAllocator allocator = new IoUringBufferRingAllocator() {
            @Override
            public ByteBuf allocate() {
                // Called count times at the loop's start, in buffer id order; writable from index 0.
                return Unpooled.wrappedBuffer(views[handedOut++ & mask].duplicate()).clear();
            }

            @Override
            public void lastBytesRead(int attempted, int actual) {
                // Only Netty's own consumer reports reads; it is not used.
            }
        };
        IoUringIoHandlerConfig config = new IoUringIoHandlerConfig().setBufferRingConfig(IoUringBufferRingConfig.builder()
                .bufferGroupId(GROUP).bufferRingSize((short) count).batchSize(count).incremental(false)
                .allocator(allocator).build());
        IoHandlerFactory netty = IoUringIoHandler.newFactory(config);
        return executor -> {
            IoHandler h = netty.newHandler(executor);
            handler = (IoUringIoHandler) h;
            return h;
        };
    }

    /**
     * Finds the kernel's ring and checks Netty filled it as expected; true when receive can use it.
     * Once per loop (the first connection asks); on failure one INFO line and false from then on.
     */
    boolean attach() {
        if (ring != null) {
            return true;
        }
        if (attachFailed) {
            return false;
        }
        String why = null;
        try {
            Object r = Access.FIND.invoke(handler, GROUP);
            ByteBuffer b = r == null ? null : (ByteBuffer) Access.RING_MEMORY.invoke(r);
            if (b == null) {
                why = "Netty set up no ring";
            } else {
                b = b.duplicate().order(ByteOrder.nativeOrder());
                short t = (short) SHORT.getAcquire(b, OFF_TAIL);
                if (t != (short) count || handedOut != count) {
                    why = "Netty filled " + t + " of " + count + " entries";
                }
                for (int i = 0; why == null && i < count; i++) {
                    int bid = b.getShort(i * ENTRY_BYTES + OFF_BID) & 0xffff;
                    if (bid != i || b.getLong(i * ENTRY_BYTES + OFF_ADDR) != slabAddress + (long) i * BUFFER_SIZE) {
                        why = "entry " + i + " is not buffer " + i;
                    }
                }
                if (why == null) {
                    ring = b;
                    tail = t;
                    inRing = count;
                    return true;
                }
            }
        } catch (Throwable t) {
            why = t.toString();
        }
        attachFailed = true;
        sayOnce(why);
        return false;
    }

    /** The bytes of buffer {@code bid}, at {@code [0, length(bid))}: read them before {@link #recycle}. */
    ByteBuffer buffer(int bid) {
        return views[bid];
    }

    /**
     * A completion named buffer {@code bid}, holding {@code length} bytes: the kernel no longer has it, and
     * it joins a connection's queue behind {@code last} (-1: the queue was empty). Returns the queue's new last.
     */
    int taken(int bid, int length, int last) {
        inRing--;
        lengths[bid] = length;
        next[bid] = -1;
        if (last >= 0) {
            next[last] = bid;
        }
        return bid;
    }

    /** Bytes in buffer {@code bid} (as its completion said). */
    int length(int bid) {
        return lengths[bid];
    }

    /** The buffer after {@code bid} in its connection's queue, or -1. */
    int next(int bid) {
        return next[bid];
    }

    /** Gives buffer {@code bid} back to the kernel (its bytes are read, or dropped). */
    void recycle(int bid) {
        short t = tail;
        int at = (t & mask) * ENTRY_BYTES;
        ring.putLong(at + OFF_ADDR, slabAddress + (long) bid * BUFFER_SIZE);
        ring.putInt(at + OFF_LEN, BUFFER_SIZE);
        ring.putShort(at + OFF_BID, (short) bid);
        tail = (short) (t + 1);
        SHORT.setRelease(ring, OFF_TAIL, tail); // the kernel reads the entry only after it sees the tail
        inRing++;
    }

    /**
     * A receive found the ring empty ({@code ENOBUFS}): counted ({@link #starvations}), and said once per
     * loop at DEBUG (more buffers, {@code ioUringRecvBuffers}, would spare those connections a recv each).
     */
    void ranDry() {
        STARVATIONS.increment();
        if (!ranDrySaid) {
            ranDrySaid = true;
            LOG.log(System.Logger.Level.DEBUG, "io_uring: a loop's receive ring of " + count
                    + " buffers ran dry; connections poll and recv until it is refilled");
        }
    }

    /** Receives that found a ring empty, all loops of the process together (a diagnostic; tests read it). */
    static long starvations() {
        return STARVATIONS.sum();
    }

    private static final java.util.concurrent.atomic.LongAdder STARVATIONS = new java.util.concurrent.atomic.LongAdder();
    private boolean ranDrySaid;

    /** Buffers the kernel may fill now (tests check none is lost). */
    int available() {
        return inRing;
    }

    /** Buffers in the ring. */
    int size() {
        return count;
    }

    /** Whether enough buffers are back for a receive that ran out ({@code ENOBUFS}) to be armed again. */
    boolean refilled() {
        return inRing >= Math.max(1, count / 4);
    }

    /** The buffer group id receive entries name. */
    short group() {
        return GROUP;
    }

    /**
     * The two package-private steps to the ring's memory, found once. Thread: any; immutable.
     */
    private static final class Access {
        /** {@code IoUringIoHandler.findBufferRing(short)}, or null. */
        static final MethodHandle FIND;
        /** The getter of {@code IoUringBufferRing.ioUringBufRing}, or null. */
        static final MethodHandle RING_MEMORY;
        /** Why they cannot be had, or null. */
        static final String UNAVAILABLE;

        static {
            MethodHandle find = null;
            MethodHandle memory = null;
            String why = null;
            try {
                MethodHandles.Lookup l = MethodHandles.privateLookupIn(IoUringIoHandler.class, MethodHandles.lookup());
                Class<?> ringClass = Class.forName("io.netty.channel.uring.IoUringBufferRing", false,
                        IoUringIoHandler.class.getClassLoader());
                find = l.findVirtual(IoUringIoHandler.class, "findBufferRing", MethodType.methodType(ringClass, short.class))
                        .asType(MethodType.methodType(Object.class, IoUringIoHandler.class, short.class));
                memory = MethodHandles.privateLookupIn(ringClass, MethodHandles.lookup())
                        .findGetter(ringClass, "ioUringBufRing", ByteBuffer.class)
                        .asType(MethodType.methodType(ByteBuffer.class, Object.class));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                find = null;
                memory = null;
                why = e.toString();
            }
            FIND = find;
            RING_MEMORY = memory;
            UNAVAILABLE = why;
        }

        private Access() {
        }
    }
}
