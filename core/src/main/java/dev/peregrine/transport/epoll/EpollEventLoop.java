package dev.peregrine.transport.epoll;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.PendingConnect;
import dev.peregrine.loop.Protocol;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.TransportLoop;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One loop thread on Linux epoll (through {@link NettyEpoll}): accepts on its own listening socket
 * (or receives connections from loop 0 where {@code SO_REUSEPORT} is off), reads, parses, handles and
 * writes, all on this thread. Everything above the socket is the same {@link Connection} the NIO
 * transport drives.
 *
 * <pre>
 *   Netty's loop thread:  epoll_wait --&gt; listener ready:   accept until EAGAIN (at most ACCEPT_BATCH,
 *                             |                             then again as a task), one EpollEndpoint each;
 *                             |                             at maxConnections: stop until a slot frees
 *                             |        connection ready: EpollEndpoint.ready (write, then read until EAGAIN)
 *                             v
 *                         run tasks (execute() from other threads, resumes, the tick every TICK_MILLIS:
 *                                    timer wheel, accept retry, graceful stop)
 * </pre>
 * Cross-thread work arrives through {@link #execute}, which is Netty's MPSC task queue with an eventfd
 * wake-up; the ordering guarantees are Netty's ({@code SingleThreadEventExecutor}).
 *
 * <p><b>Stopping.</b> {@link #beginStop} closes the listener and asks every connection to finish the
 * response it is writing; the tick closes whatever is left once all are gone or the grace has passed,
 * then counts {@link #awaitStopped} down. The Netty thread itself is shut down by the transport.
 *
 * <p>Thread: {@link #execute}, {@link #inEventLoop}, {@link #beginStop}, {@link #awaitStopped} from any
 * thread; everything else on the loop thread.
 */
final class EpollEventLoop implements EventLoop, TransportLoop, NettyEpoll.Readiness {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    /** Connections accepted per turn before other work runs (the rest follow as a task). */
    private static final int ACCEPT_BATCH = 64;
    /** Period of the tick that drives the timer wheel: its resolution. */
    static final long TICK_MILLIS = 10;

    private final int index;
    private final LoopContext ctx;
    private final NettyEpoll.Loop loop;
    private final NettyEpoll.Fd listener;
    private final ConnectionLimit limit;
    /** Outbound connections are not counted against {@code maxConnections}, which bounds what peers open. */
    private final ConnectionLimit outbound = new ConnectionLimit(Integer.MAX_VALUE, 1);
    /** Connects under way, failed if the loop stops first. */
    private final java.util.Set<OutboundConnect> connecting = new java.util.HashSet<>();
    private final Runnable resumeAcceptTask = this::resumeAccept;
    private final byte[] acceptRecord = new byte[NettyEpoll.ACCEPT_ADDRESS_BYTES];
    private final Runnable acceptTask = this::acceptTask;
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Where accepted connections go when this loop accepts for all (no SO_REUSEPORT). */
    private EpollEventLoop[] group;
    private int nextLoop;
    /** The listener may hold connections not yet accepted (edge-triggered: remembered until EAGAIN). */
    private boolean acceptReady;
    private boolean acceptQueued;
    private boolean acceptFailing;
    /** The server is at maxConnections: accepting waits for {@link ConnectionLimit#release}. */
    private boolean acceptPaused;
    private EpollEndpoint open;
    private boolean stopping;
    private boolean done;
    private long stopDeadlineNanos;

    EpollEventLoop(int index, LoopContext ctx, NettyEpoll.Fd listener, ConnectionLimit limit) {
        this.index = index;
        this.ctx = ctx;
        this.listener = listener;
        this.limit = limit;
        this.loop = new NettyEpoll.Loop("peregrine-epoll-" + index);
        ctx.bind(this);
        limit.resumer(index, () -> loop.execute(resumeAcceptTask));
    }

    /** Makes this loop accept for all of {@code loops}, round-robin. Before start. */
    void acceptFor(EpollEventLoop[] loops) {
        this.group = loops;
    }

    @Override
    public LoopContext context() {
        return ctx;
    }

    /** Registers the listener and starts the tick. Thread: the starting thread, once. */
    void start() throws IOException {
        if (listener != null) {
            listener.register(loop, this);
        }
        loop.every(TICK_MILLIS, this::tick);
    }

    @Override
    public void execute(Runnable task) {
        loop.execute(task);
    }

    /** Like {@link #execute}, telling whether the task was taken (false once the loop is shut down). */
    boolean executeOrDrop(Runnable task) {
        return loop.execute(task);
    }

    @Override
    public boolean inEventLoop() {
        return loop.inEventLoop();
    }

    /** The listener is ready: new connections wait. */
    @Override
    public void ready(boolean in, boolean out, boolean hangup) {
        acceptReady = true;
        if (!acceptQueued && !acceptPaused) {
            accept();
        }
    }

    private void acceptTask() {
        acceptQueued = false;
        if (acceptReady && !acceptPaused) {
            accept();
        }
    }

    /**
     * The server has {@code maxConnections} open: stop accepting (new connections wait in the kernel's
     * backlog, {@code acceptReady} remembers them) until {@link ConnectionLimit#release} resumes this
     * loop. Edge-triggered, nothing is disarmed. Thread: this loop.
     */
    private void pauseAccept() {
        acceptPaused = true;
        ctx.metrics().acceptPauses++;
        LOG.log(System.Logger.Level.DEBUG, "event loop {0} stops accepting: {1} connections open",
                String.valueOf(index), String.valueOf(limit.open()));
        if (limit.pause(index)) {
            resumeAccept();
        }
    }

    /** Accepts again after {@link #pauseAccept}. Thread: this loop. */
    private void resumeAccept() {
        acceptPaused = false;
        if (acceptReady && !acceptQueued && !stopping) {
            accept();
        }
    }

    private void accept() {
        if (stopping) {
            return;
        }
        for (int i = 0; i < ACCEPT_BATCH; i++) {
            if (!limit.tryAcquire()) {
                pauseAccept();
                return;
            }
            int fd;
            try {
                fd = listener.accept(acceptRecord);
            } catch (IOException e) {
                limit.release();
                // Out of descriptors, say: the connection stays queued; the tick tries again.
                if (!acceptFailing) {
                    acceptFailing = true;
                    LOG.log(System.Logger.Level.WARNING, "accept failed on event loop " + index + ": " + e.getMessage());
                }
                return;
            }
            acceptFailing = false;
            if (fd < 0) {
                limit.release();
                acceptReady = false;
                return;
            }
            InetSocketAddress remote = NettyEpoll.Fd.acceptedAddress(acceptRecord);
            EpollEventLoop target = this;
            if (group != null) {
                target = group[nextLoop];
                nextLoop = (nextLoop + 1) % group.length;
            }
            if (target == this) {
                adopt(fd, remote);
            } else {
                EpollEventLoop t = target;
                if (!t.executeOrDrop(() -> t.adopt(fd, remote))) {
                    NettyEpoll.Fd.closeAccepted(fd);
                    limit.release();
                }
            }
        }
        acceptQueued = loop.execute(acceptTask); // more may wait: after the loop's other work
    }

    /** Takes over an accepted descriptor, counted in the limit already. Thread: this loop. */
    void adopt(int fd, InetSocketAddress remote) {
        if (stopping) {
            NettyEpoll.Fd.closeAccepted(fd);
            limit.release();
            return;
        }
        NettyEpoll.Fd socket;
        try {
            socket = NettyEpoll.Fd.connected(fd);
        } catch (IOException e) {
            NettyEpoll.Fd.closeAccepted(fd);
            limit.release();
            return;
        }
        EpollEndpoint endpoint = new EpollEndpoint(this, socket, remote, limit);
        endpoint.connection = ctx.newConnection(endpoint);
        link(endpoint);
        try {
            socket.register(loop, endpoint);
        } catch (IOException | RuntimeException e) {
            endpoint.connection.close();
        }
    }

    private void link(EpollEndpoint e) {
        e.next = open;
        if (open != null) {
            open.prev = e;
        }
        open = e;
    }

    /** Forgets a closed endpoint. Thread: this loop. */
    void unlink(EpollEndpoint e) {
        if (e.prev != null) {
            e.prev.next = e.next;
        } else if (open == e) {
            open = e.next;
        }
        if (e.next != null) {
            e.next.prev = e.prev;
        }
        e.prev = null;
        e.next = null;
    }

    /** A bug of ours must cost one connection, not the loop. */
    @Override
    public void connect(InetSocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                        ConnectCallback callback) {
        NettyEpoll.Fd fd;
        try {
            fd = NettyEpoll.Fd.connecting(address);
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
            fd.register(loop, pending);
            if (fd.connectedAtOnce()) {
                pending.established(false, false);
            } else {
                connecting.add(pending);
                fd.writeInterest(true); // EPOLLOUT reports the end of the connect
            }
        } catch (IOException | RuntimeException e) {
            pending.fail(e instanceof IOException ? (IOException) e : new IOException(e));
        }
    }

    /** A socket this loop is connecting ({@link #connect}); receives its events until connected. */
    private final class OutboundConnect implements NettyEpoll.Readiness {
        private final NettyEpoll.Fd fd;
        private final PendingConnect pending;

        OutboundConnect(NettyEpoll.Fd fd, InetSocketAddress address, EndpointLayer layer, Protocol protocol,
                        long timeoutMillis, ConnectCallback callback) {
            this.fd = fd;
            this.pending = new PendingConnect(ctx, address, layer, protocol, timeoutMillis, callback, fd::close);
        }

        @Override
        public void ready(boolean in, boolean out, boolean hangup) {
            try {
                if (fd.finishConnect()) {
                    established(in, hangup);
                }
            } catch (IOException e) {
                fail(e);
            }
        }

        /** Connected: the socket passes to its endpoint, and input reported with the connect is not lost. */
        void established(boolean in, boolean hangup) {
            connecting.remove(this);
            fd.writeInterest(false);
            outbound.tryAcquire();
            EpollEndpoint endpoint = new EpollEndpoint(EpollEventLoop.this, fd, pending.address(), outbound);
            fd.owner(endpoint);
            link(endpoint);
            endpoint.connection = pending.connected(endpoint);
            if (in) {
                endpoint.ready(true, false, hangup);
            }
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
            if (acceptReady && !acceptQueued && !acceptPaused && !stopping) {
                accept();
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
            EpollEndpoint e = open;
            while (e != null) {
                EpollEndpoint next = e.next;
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
        if (done || (ctx.metrics().open() > 0 && System.nanoTime() - stopDeadlineNanos < 0)) {
            return;
        }
        done = true;
        closeListener();
        if (open != null) {
            int left = 0;
            for (EpollEndpoint e = open; e != null; e = e.next) {
                left++;
            }
            LOG.log(System.Logger.Level.INFO, "event loop {0} closes {1} connection(s) still busy at the shutdown grace",
                    String.valueOf(index), String.valueOf(left));
        }
        while (open != null) {
            open.connection.close(); // unlinks it
        }
        ctx.closeAdopted();
        for (OutboundConnect c : new java.util.ArrayList<>(connecting)) {
            c.fail(new IOException("event loop " + index + " stopped"));
        }
        stopped.countDown();
    }

    private void closeListener() {
        if (listener != null) {
            listener.close();
        }
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

    /**
     * Waits for the graceful stop (the tick ends it at the grace deadline; the margin covers a loop
     * busy past it), then ends the Netty thread and frees the loop's memory.
     */
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
