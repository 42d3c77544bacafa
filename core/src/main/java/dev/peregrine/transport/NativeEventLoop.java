package dev.peregrine.transport;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.PendingConnect;
import dev.peregrine.loop.Protocol;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One loop thread of a native transport (epoll or io_uring), written once: the transport's
 * {@link NativeIo} runs the thread (Netty's loop), accepts and makes sockets; this class hands accepted
 * descriptors to their loop, keeps the list of connections, connects outbound sockets, ticks the timer
 * wheel and stops gracefully. Everything above the socket is the same {@link Connection} NIO drives.
 *
 * <pre>
 *   the NettyLoop thread:   wait (epoll_wait / io_uring_enter)
 *                              |  a listener's connections: NativeIo accepts, {@link #dispatch} (round-robin
 *                              |      to the group when this loop accepts for all), {@link #adopt}: endpoint,
 *                              |      connection, listed, registered
 *                              |  a connection's socket: its NativeEndpoint, which pumps its ReadPump
 *                              v
 *                           run tasks (execute() from other threads, resumes, the tick every TICK_MILLIS:
 *                                      timer wheel, NativeIo.tick, graceful stop)
 * </pre>
 * The wheel's resolution is the tick; a fine deadline ({@code LoopContext.scheduleFine}) shortens the
 * wait itself ({@code FineWaitHandler}) and fires right after it.
 *
 * <p><b>Stopping.</b> {@link #beginStop} closes the listener and asks every connection to finish the
 * response it is writing; the tick closes whatever is left (connections, and closed ones still sending
 * their last bytes, {@link #linger}) once all are gone or the grace has passed, then counts
 * {@link #awaitStopped} down. {@link #awaitTermination} then ends the thread and frees the loop's memory.
 *
 * <p>Thread: {@link #execute}, {@link #executeOrDrop}, {@link #inEventLoop}, {@link #beginStop},
 * {@link #awaitStopped}, {@link #awaitTermination} from any thread; everything else on the loop thread.
 */
public final class NativeEventLoop implements EventLoop, TransportLoop {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    /** Period of the tick that drives the timer wheel: its resolution. */
    public static final long TICK_MILLIS = 10;

    private final int index;
    private final String transportName;
    private final LoopContext ctx;
    private final ConnectionLimit limit;
    private final NativeIo io;
    private final NettyLoop thread;
    /** Outbound connections are not counted against {@code maxConnections}, which bounds what peers open. */
    private final ConnectionLimit outbound = new ConnectionLimit(Integer.MAX_VALUE, 1);
    /** Connects under way, failed if the loop stops first. */
    private final Set<OutboundConnect> connecting = new HashSet<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Where accepted connections go when this loop accepts for all (no SO_REUSEPORT). */
    private NativeEventLoop[] group;
    private int nextLoop;
    /** Open connections' pumps, and closed ones still sending their last bytes. */
    private ReadPump open;
    private ReadPump lingering;
    private boolean stopping;
    private boolean done;
    private long stopDeadlineNanos;

    /** Loop {@code index}, accepting on {@code listener} (null: none) under the server's {@code limit}. */
    public NativeEventLoop(int index, LoopContext ctx, NativeIo.Listener listener, ConnectionLimit limit,
                           String transportName, NativeIo.Maker maker) {
        this.index = index;
        this.transportName = transportName;
        this.ctx = ctx;
        this.limit = limit;
        this.io = maker.open(this, listener, "peregrine-" + transportName + "-" + index);
        this.thread = io.thread();
        thread.serve(ctx); // its wait also ends at the loop's fine deadlines (a batch delay under the tick)
        ctx.bind(this);
        Runnable resume = io::resumeAccept;
        limit.resumer(index, () -> thread.execute(resume));
    }

    /** Makes this loop accept for all of {@code loops}, round-robin. Before start. */
    void acceptFor(NativeEventLoop[] loops) {
        this.group = loops;
    }

    /** This loop's number in its group. */
    public int index() {
        return index;
    }

    @Override
    public LoopContext context() {
        return ctx;
    }

    /** The server's cap on open connections. */
    public ConnectionLimit limit() {
        return limit;
    }

    /** Whether {@link #beginStop} has run: nothing new is accepted or connected. Thread: this loop. */
    public boolean stopping() {
        return stopping;
    }

    /** Starts accepting and the tick. Thread: the starting thread, once. */
    void start() throws IOException {
        io.start();
        thread.every(TICK_MILLIS, this::tick);
    }

    @Override
    public void execute(Runnable task) {
        thread.execute(task);
    }

    /** Like {@link #execute}, telling whether the task was taken (false once the loop is shut down). */
    public boolean executeOrDrop(Runnable task) {
        return thread.execute(task);
    }

    @Override
    public boolean inEventLoop() {
        return thread.inEventLoop();
    }

    /**
     * Hands a descriptor accepted on this loop, counted in the limit, to its loop: this one, or the next
     * of the group round-robin. Thread: this loop.
     */
    public void dispatch(int fd, InetSocketAddress remote) {
        NativeEventLoop target = this;
        if (group != null) {
            target = group[nextLoop];
            nextLoop = (nextLoop + 1) % group.length;
        }
        if (target == this) {
            adopt(fd, remote);
        } else {
            NativeEventLoop t = target;
            if (!t.executeOrDrop(() -> t.adopt(fd, remote))) {
                io.closeAccepted(fd);
                limit.release();
            }
        }
    }

    /** Takes over an accepted descriptor, counted in the limit already. Thread: this loop. */
    private void adopt(int fd, InetSocketAddress remote) {
        if (stopping) {
            io.closeAccepted(fd);
            limit.release();
            return;
        }
        NativeEndpoint endpoint;
        try {
            endpoint = io.accepted(fd, remote, limit);
        } catch (IOException e) {
            io.closeAccepted(fd);
            limit.release();
            return;
        }
        ReadPump pump = endpoint.pump();
        pump.connection = ctx.newConnection(endpoint);
        link(pump);
        try {
            endpoint.register();
        } catch (IOException | RuntimeException e) {
            pump.connection.close();
        }
    }

    private void link(ReadPump p) {
        p.next = open;
        if (open != null) {
            open.prev = p;
        }
        open = p;
    }

    /**
     * Keeps a closed endpoint that lingers to send its last bytes (it was {@link #unlink}ed), so that a
     * stop can end it ({@link NativeEndpoint#endLinger}). Thread: this loop.
     */
    public void linger(ReadPump p) {
        p.next = lingering;
        if (lingering != null) {
            lingering.prev = p;
        }
        lingering = p;
    }

    /** Forgets a closed endpoint (from the open list, or the lingering one). Thread: this loop. */
    public void unlink(ReadPump p) {
        if (p.prev != null) {
            p.prev.next = p.next;
        } else if (open == p) {
            open = p.next;
        } else if (lingering == p) {
            lingering = p.next;
        }
        if (p.next != null) {
            p.next.prev = p.prev;
        }
        p.prev = null;
        p.next = null;
    }

    @Override
    public void connect(InetSocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                        ConnectCallback callback) {
        NativeIo.Dialing socket;
        try {
            socket = io.dial(address);
        } catch (IOException e) {
            callback.failed(e);
            return;
        }
        OutboundConnect pending = new OutboundConnect(socket, address, layer, protocol, timeoutMillis, callback);
        if (stopping) {
            pending.fail(new IOException("event loop " + index + " is stopping"));
            return;
        }
        try {
            if (socket.start(pending)) {
                pending.established(false, false);
            } else {
                connecting.add(pending);
            }
        } catch (IOException | RuntimeException e) {
            pending.fail(e instanceof IOException ? (IOException) e : new IOException(e));
        }
    }

    @Override
    public void connectUnix(java.net.UnixDomainSocketAddress address, Protocol protocol, long timeoutMillis,
                            ConnectCallback callback) {
        callback.failed(new IOException("the " + transportName + " transport cannot connect to a Unix domain socket ("
                + address + "): build the client with Transport.NIO"));
    }

    /** A socket this loop is connecting ({@link #connect}); hears its writability until connected. */
    private final class OutboundConnect implements Readiness {
        private final NativeIo.Dialing socket;
        private final PendingConnect pending;

        OutboundConnect(NativeIo.Dialing socket, InetSocketAddress address, EndpointLayer layer, Protocol protocol,
                        long timeoutMillis, ConnectCallback callback) {
            this.socket = socket;
            this.pending = new PendingConnect(ctx, address, layer, protocol, timeoutMillis, callback, socket::close);
        }

        @Override
        public void ready(boolean in, boolean out, boolean hangup) {
            try {
                if (socket.finish()) {
                    established(in, hangup);
                }
            } catch (IOException e) {
                fail(e);
            }
        }

        /** Connected: the socket passes to its endpoint, and input reported with the connect is not lost. */
        void established(boolean in, boolean hangup) {
            connecting.remove(this);
            outbound.tryAcquire();
            NativeEndpoint endpoint = socket.endpoint(pending.address(), outbound);
            ReadPump pump = endpoint.pump();
            link(pump);
            pump.connection = pending.connected(endpoint);
            if (in) {
                endpoint.ready(true, false, hangup);
            }
        }

        void fail(IOException e) {
            connecting.remove(this);
            pending.failed(e);
        }
    }

    /** A protocol that throws costs its own connection, never the loop or the others. Thread: this loop. */
    public void connectionFailed(Connection c, Throwable t) {
        LOG.log(System.Logger.Level.DEBUG, "connection closed after its protocol failed on event loop " + index, t);
        c.close();
    }

    private void tick() {
        try {
            ctx.runTimers(TICK_MILLIS);
            if (!stopping) {
                io.tick();
            } else {
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
        boolean taken = thread.execute(() -> {
            stopping = true;
            stopDeadlineNanos = System.nanoTime() + graceMillis * 1_000_000L;
            io.closeListener();
            ReadPump p = open;
            while (p != null) {
                ReadPump next = p.next;
                p.connection.shutdown();
                p = next;
            }
            ctx.shutdownAdopted(); // in-memory connections (MemoryPipe) have no endpoint in the list
            finishStopIfDone();
        });
        if (!taken) {
            stopped.countDown();
        }
    }

    private void finishStopIfDone() {
        boolean busy = ctx.metrics().open() > 0 || lingering != null;
        if (done || (busy && System.nanoTime() - stopDeadlineNanos < 0)) {
            return;
        }
        done = true;
        io.closeListener();
        if (open != null) {
            int left = 0;
            for (ReadPump p = open; p != null; p = p.next) {
                left++;
            }
            LOG.log(System.Logger.Level.INFO, "event loop {0} closes {1} connection(s) still busy at the shutdown grace",
                    String.valueOf(index), String.valueOf(left));
        }
        while (open != null) {
            open.connection.close(); // unlinks it
        }
        while (lingering != null) {
            lingering.endpoint.endLinger(); // unlinks it; what the peer has not taken by now is dropped
        }
        ctx.closeAdopted();
        for (OutboundConnect c : new ArrayList<>(connecting)) {
            c.fail(new IOException("event loop " + index + " stopped"));
        }
        stopped.countDown();
    }

    /** Waits until the graceful stop has closed every connection (at most {@code millis}). Thread: any but this loop. */
    public void awaitStopped(long millis) {
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
     * busy past it), then ends the thread and frees the loop's memory.
     */
    @Override
    public void awaitTermination(long graceMillis) {
        awaitStopped(graceMillis + 5_000);
        shutdown();
    }

    /** Ends the loop thread and frees the loop's memory. Thread: any but this loop, after {@link #awaitStopped}. */
    public void shutdown() {
        thread.shutdown(1_000);
        ctx.free();
    }
}
