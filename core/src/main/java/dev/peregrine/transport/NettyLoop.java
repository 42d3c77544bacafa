package dev.peregrine.transport;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoHandle;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.unix.Buffer;
import io.netty.channel.unix.Socket;
import io.netty.util.concurrent.FastThreadLocalThread;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * One Netty loop thread, as both native transports use it: a {@link MultiThreadIoEventLoopGroup} of one
 * thread running the transport's {@code IoHandler} (epoll's or io_uring's: the wait, Netty's MPSC task
 * queue with an eventfd wake-up, timers for scheduled tasks), the registration of our {@link IoHandle}s
 * on it, and plain reads and writes of its sockets on our direct buffers by native address (the last
 * few buffers' addresses cached).
 *
 * <p>Names Netty types: only the native transports' Netty classes ({@code NettyEpoll},
 * {@code NettyIoUring}) load it, after their availability check.
 *
 * <p>Thread: {@link #execute}, {@link #inEventLoop}, {@link #shutdown} from any thread; {@link #register}
 * from the loop or before it serves the handle; the rest on the loop thread.
 */
public final class NettyLoop {
    private final MultiThreadIoEventLoopGroup group;
    private final IoEventLoop loop;
    /** Buffers whose native address is known: the loop's shared buffers and recently lent ones. */
    private final ByteBuffer[] cachedBuffers = new ByteBuffer[4];
    private final long[] cachedAddresses = new long[4];
    private int nextCacheSlot;
    /**
     * The buffer last read into and the one last written from, with their addresses: a loop reads into
     * its one shared buffer and writes mostly from its one batch buffer, so a read or write costs one
     * compare here, not a search of the cache ({@link #address}: 1% of an epoll pipelined profile).
     */
    private ByteBuffer lastRead;
    private long lastReadAddress;
    private ByteBuffer lastWritten;
    private long lastWrittenAddress;
    /** The transport's handler, its wait cut short for the loop's fine deadlines. */
    private FineWaitHandler handler;

    /**
     * @param oneWaitPerRun whether the transport's {@code IoHandler.run} waits once and handles only what
     *     that wait returned, so that a run is a turn of the loop clock (epoll: yes; io_uring: no; see
     *     {@link FineWaitHandler})
     */
    public NettyLoop(String threadName, IoHandlerFactory transportHandler, boolean oneWaitPerRun) {
        ThreadFactory threads = r -> new FastThreadLocalThread(r, threadName);
        IoHandlerFactory finer = executor -> handler = new FineWaitHandler(transportHandler.newHandler(executor), oneWaitPerRun, executor);
        this.group = new MultiThreadIoEventLoopGroup(1, threads, finer);
        this.loop = (IoEventLoop) group.next();
    }

    /**
     * Makes the loop's wait honour {@code ctx}'s fine deadlines ({@link FineWaitHandler}). Thread: the
     * starting thread, before the loop serves anything.
     */
    public void serve(dev.peregrine.loop.LoopContext ctx) {
        handler.serve(ctx);
    }

    /** Runs {@code task} on the loop thread soon; false (task dropped) once the loop is shutting down. */
    public boolean execute(Runnable task) {
        try {
            loop.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    public boolean inEventLoop() {
        return loop.inEventLoop();
    }

    /**
     * Runs {@code task} on the loop every {@code periodMillis}, first after one period, right after a
     * wait (not as a Netty scheduled task: {@link FineWaitHandler} says why). Once per loop. Thread: any.
     */
    public void every(long periodMillis, Runnable task) {
        handler.every(TimeUnit.MILLISECONDS.toNanos(periodMillis), task);
        // A loop already waiting waits with no deadline: an empty task wakes it, and its next wait
        // ends at the task's first run.
        execute(() -> { });
    }

    /**
     * Registers {@code handle} on this loop. On the loop thread the registration is immediate; from
     * another thread this waits for it.
     */
    public IoRegistration register(IoHandle handle) throws IOException {
        io.netty.util.concurrent.Future<IoRegistration> f = loop.register(handle);
        if (!f.isDone()) {
            f.awaitUninterruptibly();
        }
        if (!f.isSuccess()) {
            throw new IOException("cannot register with the loop: " + f.cause(), f.cause());
        }
        return f.getNow();
    }

    /**
     * Stops the loop thread and waits until it ended (at most {@code timeoutMillis} for the shutdown
     * itself); sockets still registered are closed by Netty. Then forgets cached buffers so that their
     * memory can be reclaimed. Thread: any but this loop's.
     */
    public void shutdown(long timeoutMillis) {
        group.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS);
        group.terminationFuture().awaitUninterruptibly();
        Arrays.fill(cachedBuffers, null);
        lastRead = null;
        lastWritten = null;
    }

    /** Reads into direct {@code dst} from its position to its limit; bytes read, 0 if none, -1 at EOF. */
    public int read(Socket s, ByteBuffer dst) throws IOException {
        int pos = dst.position();
        if (dst != lastRead) {
            lastReadAddress = address(dst);
            lastRead = dst;
        }
        int n = s.readAddress(lastReadAddress, pos, dst.limit());
        if (n > 0) {
            dst.position(pos + n);
        }
        return n;
    }

    /** Writes direct {@code src} from its position to its limit as far as the socket takes it; returns bytes written. */
    public int write(Socket s, ByteBuffer src) throws IOException {
        int pos = src.position();
        if (src != lastWritten) {
            lastWrittenAddress = address(src);
            lastWritten = src;
        }
        int n = s.writeAddress(lastWrittenAddress, pos, src.limit());
        if (n > 0) {
            src.position(pos + n);
        }
        return n;
    }

    /** The native address of direct buffer {@code b}, cached for the last few buffers asked about. */
    public long address(ByteBuffer b) {
        ByteBuffer[] bufs = cachedBuffers;
        for (int i = 0; i < bufs.length; i++) {
            if (bufs[i] == b) {
                return cachedAddresses[i];
            }
        }
        long a = Buffer.memoryAddress(b);
        int slot = nextCacheSlot;
        nextCacheSlot = (slot + 1) & (bufs.length - 1);
        bufs[slot] = b;
        cachedAddresses[slot] = a;
        return a;
    }
}
