package dev.peregrine.transport.nio;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.PendingConnect;
import dev.peregrine.loop.Protocol;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.transport.TransportLoop;
import dev.peregrine.transport.ConnectionLimit;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One loop thread on a Java NIO {@link Selector}: accepts on its own listening socket (or receives
 * connections from the acceptor loop where {@code SO_REUSEPORT} is missing), reads, parses, handles
 * and writes, all on this thread.
 *
 * <pre>
 *   loop:  run tasks -&gt; runTimers -&gt; sleeping=true, newTurn -&gt; select(onKey, timeout) -&gt; sleeping=false -&gt; loop
 *                                          |
 *                                          +-- listener key: accept up to 64, register OP_READ
 *                                              (at maxConnections: clear OP_ACCEPT until one closes)
 *                                          +-- connection key: onWritable, then onReadable
 * </pre>
 * {@link Selector#select(Consumer, long)} hands ready keys to a consumer built once, so no selected-key
 * set is allocated or iterated. Its timeout is {@link LoopContext#runTimers}': the wheel's next tick, or
 * the nearest fine deadline ({@code LoopContext.scheduleFine}) when sooner. Each select is one turn
 * ({@link LoopContext#newTurn}): the first key (or task after it) that reaches a connection reads the
 * loop clock, the rest of the turn finds it read.
 *
 * <p><b>Wake-up protocol.</b> A producer offers to the MPSC queue, then reads {@code sleeping}; the
 * loop writes {@code sleeping}, then checks the queue. Both are volatile accesses (the queue's index is
 * updated by CAS), so at least one side sees the other: either the loop finds the task, or the
 * producer wakes the selector. Extra wake-ups are harmless.
 */
final class NioEventLoop implements EventLoop, TransportLoop, Runnable {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private static final int ACCEPT_BATCH = 64;

    private final int index;
    private final LoopContext ctx;
    private final Selector selector;
    private final ServerSocketChannel listener;
    private final SelectionKey listenerKey;
    private final ConnectionLimit limit;
    /** Outbound connections are not counted against {@code maxConnections}, which bounds what peers open. */
    private final ConnectionLimit outbound = new ConnectionLimit(Integer.MAX_VALUE, 1);
    private final MpscUnboundedAtomicArrayQueue<Runnable> tasks = new MpscUnboundedAtomicArrayQueue<>(128);
    private final Consumer<SelectionKey> onKey = this::onKey;
    private volatile boolean sleeping;
    private volatile boolean stopped;
    /** Where accepted connections go when this loop accepts for all (no SO_REUSEPORT). */
    private NioEventLoop[] group;
    private int nextLoop;
    private boolean stopping;
    private long stopDeadlineNanos;
    private Thread thread;

    NioEventLoop(int index, LoopContext ctx, ServerSocketChannel listener, ConnectionLimit limit) throws IOException {
        this.index = index;
        this.ctx = ctx;
        this.listener = listener;
        this.limit = limit;
        this.selector = Selector.open();
        ctx.bind(this);
        this.listenerKey = listener == null ? null : listener.register(selector, SelectionKey.OP_ACCEPT, listener);
        limit.resumer(index, () -> execute(this::resumeAccept));
    }

    /** Frees a loop that was made but never started (a later step of the server's start failed). */
    void discard() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing more to release
        }
        ctx.free();
    }

    /** Makes this loop accept for all of {@code loops}, round-robin. Before start. */
    void acceptFor(NioEventLoop[] loops) {
        this.group = loops;
    }

    @Override
    public LoopContext context() {
        return ctx;
    }

    void start() {
        thread = new Thread(this, "peregrine-nio-" + index);
        thread.start();
    }

    /** Waits for the loop thread, which ends by itself once the grace has passed. */
    @Override
    public void awaitTermination(long graceMillis) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
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
    public void execute(Runnable task) {
        if (stopped) {
            return;
        }
        tasks.offer(task);
        if (sleeping) {
            selector.wakeup();
        }
    }

    @Override
    public boolean inEventLoop() {
        return Thread.currentThread() == thread;
    }

    @Override
    public void run() {
        try {
            while (true) {
                runTasks();
                long sleepMillis = ctx.runTimers(stopping ? 20 : 1000);
                if (stopping && (ctx.metrics().open() == 0 || System.nanoTime() - stopDeadlineNanos > 0)) {
                    break;
                }
                sleeping = true;
                ctx.newTurn(); // the keys the wait hands onKey, and the tasks after it: the first reads the clock
                try {
                    if (!tasks.isEmpty()) {
                        selector.selectNow(onKey);
                    } else {
                        selector.select(onKey, sleepMillis);
                    }
                } finally {
                    sleeping = false;
                }
            }
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "event loop " + index + " failed", t);
        } finally {
            stopped = true;
            closeEverything();
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.ERROR, "task failed on event loop " + index, t);
            }
        }
    }

    private void onKey(SelectionKey key) {
        Object a = key.attachment();
        if (a instanceof NioEndpoint) {
            Connection c = ((NioEndpoint) a).connection;
            try {
                int ready = key.readyOps();
                if ((ready & SelectionKey.OP_WRITE) != 0) {
                    c.onWritable();
                }
                if ((ready & SelectionKey.OP_READ) != 0 && key.isValid()) {
                    c.onReadable();
                }
            } catch (Throwable t) {
                // A protocol that throws costs its own connection, never the loop or the others.
                LOG.log(System.Logger.Level.DEBUG, "connection closed after its protocol failed on event loop " + index, t);
                c.close();
            }
        } else if (a instanceof OutboundConnect) {
            ((OutboundConnect) a).finishConnect();
        } else if (!stopping) {
            accept();
        }
    }

    @Override
    public void connect(InetSocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                        ConnectCallback callback) {
        SocketChannel ch;
        try {
            ch = SocketChannel.open();
        } catch (IOException e) {
            callback.failed(e);
            return;
        }
        start(ch, address, layer, protocol, timeoutMillis, callback);
    }

    /** Starts a non-blocking connect of {@code ch} (TCP, or a Unix domain socket: no TCP_NODELAY there). */
    private void start(SocketChannel ch, SocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                       ConnectCallback callback) {
        OutboundConnect pending = new OutboundConnect(ch, address, layer, protocol, timeoutMillis, callback);
        if (stopping) {
            pending.fail(new IOException("event loop " + index + " is stopping"));
            return;
        }
        try {
            ch.configureBlocking(false);
            if (address instanceof InetSocketAddress) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            if (ch.connect(address)) {
                pending.established();
            } else {
                pending.key = ch.register(selector, SelectionKey.OP_CONNECT, pending);
            }
        } catch (IOException e) {
            pending.fail(e);
        }
    }

    @Override
    public void connectUnix(UnixDomainSocketAddress address, Protocol protocol, long timeoutMillis, ConnectCallback callback) {
        SocketChannel ch;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (IOException | UnsupportedOperationException e) {
            callback.failed(e instanceof IOException ? (IOException) e : new IOException("Unix domain sockets: " + e.getMessage(), e));
            return;
        }
        start(ch, address, null, protocol, timeoutMillis, callback);
    }

    /** A socket this loop is connecting ({@link #connect}); attached to its key until connected. */
    private final class OutboundConnect {
        private final SocketChannel channel;
        private final PendingConnect pending;
        SelectionKey key;

        OutboundConnect(SocketChannel channel, SocketAddress address, EndpointLayer layer, Protocol protocol,
                        long timeoutMillis, ConnectCallback callback) {
            this.channel = channel;
            this.pending = new PendingConnect(ctx, address, layer, protocol, timeoutMillis, callback, this::abort);
        }

        /** {@code OP_CONNECT}: the three-way handshake ended, well or not. */
        void finishConnect() {
            try {
                if (channel.finishConnect()) {
                    established();
                }
            } catch (IOException e) {
                fail(e);
            }
        }

        void established() throws IOException {
            if (key == null) {
                key = channel.register(selector, SelectionKey.OP_READ);
            } else {
                key.interestOps(SelectionKey.OP_READ);
            }
            outbound.tryAcquire();
            NioEndpoint endpoint = new NioEndpoint(channel, key, outbound);
            key.attach(endpoint);
            endpoint.connection = pending.connected(endpoint);
        }

        void fail(IOException e) {
            pending.failed(e);
        }

        private void abort() {
            if (key != null) {
                key.cancel();
            }
            try {
                channel.close();
            } catch (IOException e) {
                // nothing more to release
            }
        }
    }

    private void accept() {
        for (int i = 0; i < ACCEPT_BATCH; i++) {
            if (!limit.tryAcquire()) {
                pauseAccept();
                return;
            }
            SocketChannel ch;
            try {
                ch = listener.accept();
            } catch (IOException e) {
                limit.release();
                LOG.log(System.Logger.Level.WARNING, "accept failed: " + e.getMessage());
                return;
            }
            if (ch == null) {
                limit.release();
                return;
            }
            if (group == null) {
                register(ch);
            } else {
                NioEventLoop target = group[nextLoop];
                nextLoop = (nextLoop + 1) % group.length;
                if (target == this) {
                    register(ch);
                } else {
                    target.execute(() -> target.register(ch));
                }
            }
        }
    }

    /**
     * The server has {@code maxConnections} open: stop accepting (new connections wait in the kernel's
     * backlog) until {@link ConnectionLimit#release} resumes this loop. Thread: this loop.
     */
    private void pauseAccept() {
        listenerKey.interestOps(0);
        ctx.metrics().acceptPauses++;
        LOG.log(System.Logger.Level.DEBUG, "event loop {0} stops accepting: {1} connections open",
                String.valueOf(index), String.valueOf(limit.open()));
        if (limit.pause(index)) {
            resumeAccept();
        }
    }

    /** Accepts again after {@link #pauseAccept}. Thread: this loop. */
    private void resumeAccept() {
        if (!stopping && listenerKey.isValid()) {
            listenerKey.interestOps(SelectionKey.OP_ACCEPT);
        }
    }

    /** Takes over an accepted channel, counted in the limit already. Thread: this loop. */
    void register(SocketChannel ch) {
        try {
            if (stopping) {
                limit.release();
                ch.close();
                return;
            }
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            SelectionKey key = ch.register(selector, SelectionKey.OP_READ);
            NioEndpoint endpoint = new NioEndpoint(ch, key, limit);
            endpoint.connection = ctx.newConnection(endpoint);
            key.attach(endpoint);
        } catch (IOException e) {
            limit.release();
            try {
                ch.close();
            } catch (IOException ignored) {
                // already failing
            }
        }
    }

    @Override
    public void beginStop(long graceMillis) {
        execute(() -> {
            stopping = true;
            stopDeadlineNanos = System.nanoTime() + graceMillis * 1_000_000L;
            closeListener();
            for (Connection c : connections()) {
                c.shutdown();
            }
            ctx.shutdownAdopted(); // in-memory connections (MemoryPipe) have no key
        });
    }

    private List<Connection> connections() {
        List<Connection> list = new ArrayList<>();
        for (SelectionKey k : selector.keys()) {
            if (k.isValid() && k.attachment() instanceof NioEndpoint) {
                list.add(((NioEndpoint) k.attachment()).connection);
            }
        }
        return list;
    }

    private void closeListener() {
        if (listener != null) {
            try {
                listener.close();
            } catch (IOException e) {
                // the port is released either way
            }
        }
    }

    private void closeEverything() {
        stopping = true;
        closeListener();
        List<Connection> left = connections();
        if (!left.isEmpty()) {
            LOG.log(System.Logger.Level.INFO, "event loop {0} closes {1} connection(s) still busy at the shutdown grace",
                    String.valueOf(index), String.valueOf(left.size()));
        }
        for (Connection c : left) {
            c.close();
        }
        ctx.closeAdopted();
        for (SelectionKey k : selector.keys()) {
            if (k.attachment() instanceof OutboundConnect) {
                ((OutboundConnect) k.attachment()).fail(new IOException("event loop " + index + " stopped"));
            }
        }
        Runnable task;
        while ((task = tasks.poll()) != null) {
            // Hand-offs that arrived too late: with 'stopping' set, register() closes their channels.
            try {
                task.run();
            } catch (Throwable ignored) {
                // shutting down
            }
        }
        try {
            selector.close();
        } catch (IOException e) {
            // nothing more to release
        }
        ctx.free();
    }
}
