package dev.peregrine;

import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.MemoryEndpoint;
import dev.peregrine.loop.Protocol;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.server.ServerSetup;

import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Tests handlers without a socket, the way fasthttp's {@code InmemoryListener} or Netty's
 * {@code EmbeddedChannel} allow: the builder's routes and settings run in the real connection code
 * ({@link Connection} with the HTTP/1.1 protocol, the same parser, router and encoder as a server)
 * over an in-memory socket, on the calling thread.
 * <pre>{@code
 * try (TestClient client = TestClient.of(Server.builder().get("/hi", (req, res) -> res.text("hi")))) {
 *     TestClient.Response r = client.get("/hi");
 *     assertEquals(200, r.status());
 *     assertEquals("hi", r.text());
 * }
 * }</pre>
 * Everything {@code start()} would serve is served: routes, filters, static files, and the
 * {@link Server.Builder#metricsEndpoint metrics} and {@link Server.Builder#healthEndpoints health}
 * endpoints (the metrics of this client's one loop; ready while it is open).
 * Blocking and async handlers work: their threads hand the response back to the calling thread,
 * which waits for it (at most {@link #timeout}). One connection at a time, kept alive between
 * requests as a client would; after a response with {@code Connection: close} the next request gets
 * a new one. Nothing here opens a port or starts a loop thread; outbound connects are not offered.
 *
 * <p>Thread: one thread at a time (the one calling); not thread-safe.
 */
public final class TestClient implements AutoCloseable {
    private final LoopContext ctx;
    private final OffLoopExecutor blockingExecutor;
    private final List<AutoCloseable> closeAtStop;
    private final CallingThreadLoop loop = new CallingThreadLoop();
    private long timeoutMillis = 30_000;
    private final dev.peregrine.web.AccessLog accessLog;
    private MemoryEndpoint socket;
    private Connection connection;

    private TestClient(Server.Builder builder) {
        ServerConfig config = builder.settings();
        OpsEndpoints.register(builder, builder.self); // metrics and health endpoints, as start() serves them
        closeAtStop = List.copyOf(builder.closeAtStop);
        this.blockingExecutor = new OffLoopExecutor(config.blockingPoolSize());
        ServerSetup setup = new ServerSetup(config, builder.router(new IdentityHashMap<>()), builder.protocolSwitches,
                blockingExecutor, builder.compression, builder.requestIds, builder.accessLog);
        this.accessLog = builder.accessLog;
        if (accessLog != null) {
            accessLog.start();
        }
        this.ctx = new LoopContext(setup.listener(0, null));
        ctx.bind(loop);
        LoopContext own = ctx;
        builder.self.local = () -> Metrics.of(List.of(own));
    }

    /** A client of {@code builder}'s routes and settings (the builder is not started). */
    public static TestClient of(Server.Builder builder) {
        return new TestClient(builder);
    }

    /** How long a request may wait for its response (handlers off the loop) before it fails; 30 s by default. */
    public TestClient timeout(java.time.Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
        return this;
    }

    /** {@code GET path} with {@code Host: localhost}. */
    public Response get(String path) {
        return request("GET", path, null);
    }

    /**
     * One request: {@code method path}, {@code Host: localhost}, then {@code headers} (name, value
     * pairs) and {@code body} with its Content-Length when not null.
     */
    public Response request(String method, String path, byte[] body, String... headers) {
        StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: localhost\r\n");
        for (int i = 0; i + 1 < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        wire.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (body != null) {
            wire.writeBytes(body);
        }
        List<Response> r = send(wire.toByteArray(), 1, method.equals("HEAD"));
        return r.get(0);
    }

    /**
     * Sends raw bytes (any number of requests, valid or not) and returns the {@code expected}
     * responses they get, in order; fewer when the server closes the connection first.
     */
    public List<Response> send(String raw, int expected) {
        return send(raw.getBytes(StandardCharsets.ISO_8859_1), expected, false);
    }

    private List<Response> send(byte[] bytes, int expected, boolean head) {
        if (connection == null || connection.isClosed()) {
            socket = new MemoryEndpoint();
            socket.closesAfterOurFin(); // after the server's FIN the client closes too
            connection = ctx.newConnection(socket);
        }
        loop.owner = Thread.currentThread();
        socket.feed(bytes);
        List<Response> out = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            drive();
            Response r;
            while (out.size() < expected && (r = Response.parse(socket.written(), head, connection.isClosed())) != null) {
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
        Server.closeResources(closeAtStop);
    }

    /** One response as the client saw it. Immutable. */
    public static final class Response {
        private final int status;
        private final List<String[]> headers;
        private final byte[] body;

        private Response(int status, List<String[]> headers, byte[] body) {
            this.status = status;
            this.headers = headers;
            this.body = body;
        }

        public int status() {
            return status;
        }

        /** The first value of header {@code name} (any case), or null. */
        public String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        /** Every value of header {@code name} (any case), in order. */
        public List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    values.add(h[1]);
                }
            }
            return values;
        }

        public byte[] body() {
            return body.clone();
        }

        /** The body as UTF-8 text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return status + " " + text();
        }

        /**
         * Takes one complete response from the front of {@code wire} (removing its bytes), or returns
         * null when it is not all there; {@code closed}: the server closed, so a body read until the
         * close is complete. Read by the client's own {@link ResponseReader} (interim responses
         * skipped, framing as RFC 9112 says); bytes it refuses fail the call with its reason.
         */
        static Response parse(ByteArrayOutputStream wire, boolean head, boolean closed) {
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
            return new Response(reader.status(), headers, body);
        }
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

    /** The in-memory socket: input queued by the client, output collected, no limits. */
}
