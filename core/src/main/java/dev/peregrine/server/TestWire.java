package dev.peregrine.server;

import dev.peregrine.Metrics;
import dev.peregrine.ServerConfig;
import dev.peregrine.ServerEngine;
import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.MemoryEndpoint;
import dev.peregrine.loop.Protocol;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.web.AccessLog;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What {@code TestClient} runs on ({@link ServerEngine#wire}): the plan's routes and settings in the
 * real connection code ({@link Connection} with the HTTP/1.1 protocol, the same parser, router and
 * encoder as a server) over an in-memory socket, one loop driven by the calling thread. Responses are
 * read by the client's own {@link ResponseReader}. One connection at a time, kept alive between
 * requests; after the server closed it the next request gets a new one.
 *
 * <p>Thread: one thread at a time (the one calling); not thread-safe.
 */
final class TestWire implements ServerEngine.Wire {
    private final LoopContext ctx;
    private final OffLoopExecutor blockingExecutor;
    private final List<AutoCloseable> closeAtStop;
    private final CallingThreadLoop loop = new CallingThreadLoop();
    private final AccessLog accessLog;
    private MemoryEndpoint socket;
    private Connection connection;

    TestWire(ServerEngine.Plan plan) {
        ServerConfig config = plan.config();
        closeAtStop = plan.closeAtStop();
        this.blockingExecutor = new OffLoopExecutor(config.blockingPoolSize());
        ServerSetup setup = new ServerSetup(config, RouteAssembly.build(plan.routes(), new IdentityHashMap<>()),
                ProtocolSwitches.of(plan), blockingExecutor, plan.compression(), plan.requestIds(), plan.accessLog());
        this.accessLog = plan.accessLog();
        if (accessLog != null) {
            accessLog.start();
        }
        this.ctx = new LoopContext(setup.listener(0, null));
        ctx.bind(loop);
    }

    @Override
    public Metrics metrics() {
        return MetricsReader.read(List.of(ctx));
    }

    @Override
    public List<ServerEngine.Reply> exchange(byte[] bytes, int expected, boolean head, long timeoutMillis) {
        if (connection == null || connection.isClosed()) {
            socket = new MemoryEndpoint();
            socket.closesAfterOurFin(); // after the server's FIN the client closes too
            connection = ctx.newConnection(socket);
        }
        loop.owner = Thread.currentThread();
        socket.feed(bytes);
        List<ServerEngine.Reply> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            drive();
            ServerEngine.Reply r;
            while (out.size() < expected && (r = parse(socket.written(), head, connection.isClosed())) != null) {
                out.add(r);
            }
            if (out.size() == expected || connection.isClosed()) {
                return out;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("no response within " + timeoutMillis + " ms (" + out.size() + " of "
                        + expected + " so far; " + socket.written().size() + " bytes unparsed)");
            }
            try {
                Runnable task = loop.tasks.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)), TimeUnit.NANOSECONDS);
                if (task != null) {
                    task.run();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a response", e);
            }
            ctx.runTimers(0);
        }
    }

    /** Runs what the loop would: tasks handed back, then reads while input waits and the connection reads. */
    private void drive() {
        Runnable task;
        while ((task = loop.tasks.poll()) != null) {
            task.run();
        }
        while (!connection.isClosed() && socket.readInterest() && socket.hasInput()) {
            if (!connection.onReadable()) {
                break;
            }
            while ((task = loop.tasks.poll()) != null) {
                task.run();
            }
        }
        if (!connection.isClosed() && !socket.hasInput() && socket.outputShut()) {
            connection.onReadable(); // the server half-closed: the client's end of stream lets it close
        }
    }

    /** Closes the connection and the executor of blocking handlers. */
    @Override
    public void close() {
        if (connection != null) {
            connection.close();
        }
        blockingExecutor.shutdown();
        if (accessLog != null) {
            accessLog.close();
        }
        ctx.free();
        ServerLaunch.closeResources(closeAtStop);
    }

    /**
     * Takes one complete response from the front of {@code wire} (removing its bytes), or returns
     * null when it is not all there; {@code closed}: the server closed, so a body read until the
     * close is complete. Read by the client's own {@link ResponseReader} (interim responses
     * skipped, framing as RFC 9112 says); bytes it refuses fail the call with its reason.
     */
    private static ServerEngine.Reply parse(ByteArrayOutputStream wire, boolean head, boolean closed) {
        byte[] b = wire.toByteArray();
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        ResponseReader reader = new ResponseReader(1 << 20, Long.MAX_VALUE);
        reader.expect(head);
        int end = reader.read(buf, 0, b.length);
        if (end == ResponseReader.NEED_MORE) {
            if (!closed) {
                return null;
            }
            end = reader.atEndOfInput(buf, reader.responseStart(), b.length);
        }
        if (end == ResponseReader.ERROR) {
            throw new IllegalStateException("the server's response is not one a client accepts: " + reader.error());
        }
        List<String[]> headers = new ArrayList<>();
        for (int i = 0; i < reader.names().size(); i++) {
            headers.add(new String[] {reader.names().get(i), reader.values().get(i)});
        }
        byte[] body = java.util.Arrays.copyOfRange(b, reader.bodyStart(), reader.bodyStart() + reader.bodyLength());
        wire.reset();
        wire.write(b, end, b.length - end);
        return new ServerEngine.Reply(reader.status(), headers, body);
    }

    /** The "loop" of a test client: the calling thread, with a queue for work handed back by other threads. */
    private static final class CallingThreadLoop implements EventLoop {
        final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
        volatile Thread owner;

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        @Override
        public boolean inEventLoop() {
            return Thread.currentThread() == owner;
        }

        @Override
        public void connect(InetSocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                            ConnectCallback callback) {
            throw new UnsupportedOperationException("a TestClient opens no sockets");
        }
    }
}
