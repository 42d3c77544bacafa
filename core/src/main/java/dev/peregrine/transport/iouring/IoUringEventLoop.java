package dev.peregrine.transport.iouring;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.PendingConnect;
import dev.peregrine.loop.Protocol;
import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.TransportLoop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One loop thread on io_uring (through {@link NettyIoUring}): accepts on its own listening socket (or
 * receives connections from loop 0 where {@code SO_REUSEPORT} is off), reads, parses, handles and
 * writes, all on this thread. Everything above the socket is the same {@link Connection} the other
 * transports drive.
 *
 * <pre>
 *   Netty's loop thread:  io_uring_enter (submit this turn's entries, wait for completions)
 *                             |  accept completion:  adopt the descriptor (one IoUringEndpoint), or park
 *                             |                      it at maxConnections and cancel the accept entry
 *                             |  poll completion:    IoUringEndpoint.ready (write, then read until short)
 *                             v
 *                         run tasks (execute() from other threads, resumes, the tick every TICK_MILLIS:
 *                                    timer wheel, accept re-arm after a failure, graceful stop)
 * </pre>
 *
 * <p><b>maxConnections.</b> A multishot accept takes connections without asking, so the limit is
 * applied as each completion arrives: a descriptor that gets no slot is parked (it is a connection the
 * kernel has set up, as one in the backlog would be), the accept entry is cancelled, and the loop waits
 * for {@link ConnectionLimit#release}; resuming adopts the parked descriptors first, then arms accept again.
 *
 * <p><b>Stopping.</b> {@link #beginStop} cancels the accept entry, closes the listener and parked
 * descriptors and asks every connection to finish the response it is writing; the tick closes whatever
 * is left once all are gone or the grace has passed, then counts {@link #awaitStopped} down.
 *
 * <p>Thread: {@link #execute}, {@link #inEventLoop}, {@link #beginStop}, {@link #awaitStopped} from any
 * thread; everything else on the loop thread.
 */
final class IoUringEventLoop implements EventLoop, TransportLoop, NettyIoUring.Acceptor {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    /** Period of the tick that drives the timer wheel: its resolution. */
    static final long TICK_MILLIS = 10;
    /** {@code -ECANCELED}: the result of an entry cancelled by {@code IORING_OP_ASYNC_CANCEL}. */
    private static final int ECANCELED = -125;

    private final int index;
    private final LoopContext ctx;
    private final NettyIoUring.Loop loop;
    private final NettyIoUring.Fd listener;
    private final ConnectionLimit limit;
    /** Outbound connections are not counted against {@code maxConnections}, which bounds what peers open. */
    private final ConnectionLimit outbound = new ConnectionLimit(Integer.MAX_VALUE, 1);
    private final java.util.Set<OutboundConnect> connecting = new java.util.HashSet<>();
    private final Runnable resumeAcceptTask = this::resumeAccept;
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Accepted descriptors waiting for a slot under maxConnections (a small queue, in arrival order). */
    private int[] parked = new int[8];
    private int parkedCount;
    private IoUringEventLoop[] group;
    private int nextLoop;
    private boolean acceptPaused;
    /** An accept completion failed (out of descriptors, say): the tick arms it again. */
    private boolean acceptFailing;
    private IoUringEndpoint open;
    /** Closed endpoints still sending what their connection wrote ({@link IoUringEndpoint#endLinger}). */
    private IoUringEndpoint lingering;
    private boolean stopping;
    private boolean done;
    private long stopDeadlineNanos;

    IoUringEventLoop(int index, LoopContext ctx, NettyIoUring.Fd listener, ConnectionLimit limit) {
        this.index = index;
        this.ctx = ctx;
        this.listener = listener;
        this.limit = limit;
        this.loop = new NettyIoUring.Loop("peregrine-io_uring-" + index);
        ctx.bind(this);
        limit.resumer(index, () -> loop.execute(resumeAcceptTask));
    }

    /** Makes this loop accept for all of {@code loops}, round-robin. Before start. */
    void acceptFor(IoUringEventLoop[] loops) {
        this.group = loops;
    }

    @Override
    public LoopContext context() {
        return ctx;
    }

    /** Registers the listener, arms its accept on the loop and starts the tick. Thread: the starting thread, once. */
    void start() throws IOException {
        if (listener != null) {
            listener.register(loop, null, this);
            loop.execute(listener::armAccept);
        }
        loop.every(TICK_MILLIS, this::tick);
    }

    @Override
    public void execute(Runnable task) {
        loop.execute(task);
    }

    boolean executeOrDrop(Runnable task) {
        return loop.execute(task);
    }

    @Override
    public boolean inEventLoop() {
        return loop.inEventLoop();
    }

    @Override
    public void accepted(int fd, boolean more) {
        if (fd < 0) {
            if (more || stopping || acceptPaused) {
                return;
            }
            if (fd == ECANCELED) {
                listener.armAccept(); // the entry a pause cancelled ended after the pause was over
            } else if (!acceptFailing) {
                // Out of descriptors, say: the connection stays queued; the tick arms the accept again.
                acceptFailing = true;
                LOG.log(System.Logger.Level.WARNING, "accept failed on event loop " + index + ": errno " + (-fd));
            }
            return;
        }
        if (stopping) {
            NettyIoUring.Fd.closeAccepted(fd);
            return;
        }
        acceptFailing = false;
        if (acceptPaused || !limit.tryAcquire()) {
            park(fd);
            return;
        }
        dispatch(fd);
        if (!more && !acceptPaused) {
            listener.armAccept(); // single-shot accept, or a multishot the kernel ended
        }
    }

    /** Hands an accepted descriptor, counted in the limit, to its loop. */
    private void dispatch(int fd) {
        IoUringEventLoop target = this;
        if (group != null) {
            target = group[nextLoop];
            nextLoop = (nextLoop + 1) % group.length;
        }
        if (target == this) {
            adopt(fd);
        } else {
            IoUringEventLoop t = target;
            if (!t.executeOrDrop(() -> t.adopt(fd))) {
                NettyIoUring.Fd.closeAccepted(fd);
                limit.release();
            }
        }
    }

    private void park(int fd) {
        if (parkedCount == parked.length) {
            parked = java.util.Arrays.copyOf(parked, parked.length * 2);
        }
        parked[parkedCount++] = fd;
        if (!acceptPaused) {
            acceptPaused = true;
            listener.cancelAccept();
            ctx.metrics().acceptPauses++;
            LOG.log(System.Logger.Level.DEBUG, "event loop {0} stops accepting: {1} connections open",
                    String.valueOf(index), String.valueOf(limit.open()));
            if (limit.pause(index)) {
                loop.execute(resumeAcceptTask);
            }
        }
    }

    /** Accepts again after a pause: parked descriptors first, as far as the limit allows. Thread: this loop. */
    private void resumeAccept() {
        if (!acceptPaused || stopping) {
            return;
        }
        int taken = 0;
        while (taken < parkedCount && limit.tryAcquire()) {
            dispatch(parked[taken++]);
        }
        System.arraycopy(parked, taken, parked, 0, parkedCount - taken);
        parkedCount -= taken;
        if (parkedCount > 0) {
            if (limit.pause(index)) {
                loop.execute(resumeAcceptTask);
            }
            return;
        }
        acceptPaused = false;
        listener.armAccept(); // a cancelled entry's last completion may still be due: it parks what it brings
    }

    /** Takes over an accepted descriptor, counted in the limit already. Thread: this loop. */
    void adopt(int fd) {
        if (stopping) {
            NettyIoUring.Fd.closeAccepted(fd);
            limit.release();
            return;
        }
        NettyIoUring.Fd socket;
        try {
            socket = NettyIoUring.Fd.connected(fd);
        } catch (IOException e) {
            NettyIoUring.Fd.closeAccepted(fd);
            limit.release();
            return;
        }
        IoUringEndpoint endpoint = new IoUringEndpoint(this, socket, socket.remoteAddress(), limit);
        endpoint.connection = ctx.newConnection(endpoint);
        link(endpoint);
        try {
            socket.register(loop, endpoint, null);
            endpoint.start();
        } catch (IOException | RuntimeException e) {
            endpoint.connection.close();
        }
    }

    private void link(IoUringEndpoint e) {
        e.next = open;
        if (open != null) {
            open.prev = e;
        }
        open = e;
    }

    /** Keeps a closed endpoint that lingers to send its last bytes, so that a stop can end it. Thread: this loop. */
    void lingering(IoUringEndpoint e) {
        e.next = lingering;
        if (lingering != null) {
            lingering.prev = e;
        }
        lingering = e;
    }

    /** Forgets a closed endpoint (from the open list, or the lingering one). Thread: this loop. */
    void unlink(IoUringEndpoint e) {
        if (e.prev != null) {
            e.prev.next = e.next;
        } else if (open == e) {
            open = e.next;
        } else if (lingering == e) {
            lingering = e.next;
        }
        if (e.next != null) {
            e.next.prev = e.prev;
        }
        e.prev = null;
        e.next = null;
    }

    @Override
    public void connect(InetSocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                        ConnectCallback callback) {
        NettyIoUring.Fd fd;
        try {
            fd = NettyIoUring.Fd.connecting(address);
        } catch (IOException e) {
            callback.failed(e);
            return;
        }
        OutboundConnect pending = new OutboundConnect(fd, address, layer, protocol, timeoutMillis, callback);
        if (stopping) {
            pending.fail(new IOException("event loop " + index + " is stopping"));
            return;
        }
        try {
            fd.register(loop, pending, null);
            if (fd.connectedAtOnce()) {
                pending.established();
            } else {
                connecting.add(pending);
                fd.armWrite(); // POLLOUT reports the end of the connect
            }
        } catch (IOException | RuntimeException e) {
            pending.fail(e instanceof IOException ? (IOException) e : new IOException(e));
        }
    }

    /** A socket this loop is connecting ({@link #connect}); hears its poll until connected. */
    private final class OutboundConnect implements NettyIoUring.Readiness {
        private final NettyIoUring.Fd fd;
        private final PendingConnect pending;

        OutboundConnect(NettyIoUring.Fd fd, InetSocketAddress address, EndpointLayer layer, Protocol protocol,
                        long timeoutMillis, ConnectCallback callback) {
            this.fd = fd;
            this.pending = new PendingConnect(ctx, address, layer, protocol, timeoutMillis, callback, fd::close);
        }

        @Override
        public void ready(boolean in, boolean out, boolean hangup) {
            try {
                if (fd.finishConnect()) {
                    established();
                } else {
                    fd.armWrite();
                }
            } catch (IOException e) {
                fail(e);
            }
        }

        /** Connected: the socket passes to its endpoint, which arms its first read poll. */
        void established() {
            connecting.remove(this);
            outbound.tryAcquire();
            IoUringEndpoint endpoint = new IoUringEndpoint(IoUringEventLoop.this, fd, pending.address(), outbound);
            fd.owner(endpoint);
            link(endpoint);
            endpoint.connection = pending.connected(endpoint);
            endpoint.start();
        }

        void fail(IOException e) {
            connecting.remove(this);
            pending.failed(e);
        }
    }

    void connectionFailed(Connection c, Throwable t) {
        // A protocol that throws costs its own connection, never the loop or the others.
        LOG.log(System.Logger.Level.DEBUG, "connection closed after its protocol failed on event loop " + index, t);
        c.close();
    }

    private void tick() {
        try {
            ctx.runTimers(TICK_MILLIS);
            if (acceptFailing && !acceptPaused && !stopping && !listener.acceptArmed()) {
                listener.armAccept();
            }
            if (stopping) {
                finishStopIfDone();
            }
        } catch (Throwable t) {
            // An exception would cancel Netty's periodic task: keep ticking.
            LOG.log(System.Logger.Level.ERROR, "timer failed on event loop " + index, t);
        }
    }

    /** Stops accepting and starts closing connections gracefully. Thread: any. */
    @Override
    public void beginStop(long graceMillis) {
        boolean taken = loop.execute(() -> {
            stopping = true;
            stopDeadlineNanos = System.nanoTime() + graceMillis * 1_000_000L;
            closeListener();
            IoUringEndpoint e = open;
            while (e != null) {
                IoUringEndpoint next = e.next;
                e.connection.shutdown();
                e = next;
            }
            ctx.shutdownAdopted(); // in-memory connections (MemoryPipe) have no endpoint in the list
            finishStopIfDone();
        });
        if (!taken) {
            stopped.countDown();
        }
    }

    private void finishStopIfDone() {
        if (done || ((ctx.metrics().open() > 0 || lingering != null) && System.nanoTime() - stopDeadlineNanos < 0)) {
            return;
        }
        done = true;
        closeListener();
        if (open != null) {
            int left = 0;
            for (IoUringEndpoint e = open; e != null; e = e.next) {
                left++;
            }
            LOG.log(System.Logger.Level.INFO, "event loop {0} closes {1} connection(s) still busy at the shutdown grace",
                    String.valueOf(index), String.valueOf(left));
        }
        while (open != null) {
            open.connection.close(); // unlinks it
        }
        while (lingering != null) {
            lingering.endLinger(); // unlinks it; what the peer has not taken by now is dropped
        }
        ctx.closeAdopted();
        for (OutboundConnect c : new java.util.ArrayList<>(connecting)) {
            c.fail(new IOException("event loop " + index + " stopped"));
        }
        stopped.countDown();
    }

    private void closeListener() {
        if (listener != null) {
            listener.close(); // cancels the accept entry first
        }
        for (int i = 0; i < parkedCount; i++) {
            NettyIoUring.Fd.closeAccepted(parked[i]);
        }
        parkedCount = 0;
    }

    /** Waits until the graceful stop has closed every connection (at most {@code millis}). Thread: any but this loop. */
    void awaitStopped(long millis) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            try {
                stopped.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void awaitTermination(long graceMillis) {
        awaitStopped(graceMillis + 5_000);
        shutdown();
    }

    /** Ends the loop thread and frees the loop's memory. Thread: any but this loop, after {@link #awaitStopped}. */
    void shutdown() {
        loop.shutdown(1_000);
        loop.forgetBuffers();
        ctx.free();
    }
}
