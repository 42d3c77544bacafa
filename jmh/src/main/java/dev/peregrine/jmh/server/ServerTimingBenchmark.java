package dev.peregrine.jmh.server;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.loop.Protocol;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.server.ServerSetup;
import dev.peregrine.loop.SocketEndpoint;
import dev.peregrine.route.Router;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The server table of fasthttp's {@code server_timing_test.go}, in memory: the server's whole path
 * (connection, framing, parsing, routing, handler, encoding, the batch write) without sockets, beside
 * Netty's {@code EmbeddedChannel} with {@code HttpServerCodec} and a handler giving the same answer,
 * in the same run. One operation is one request: a connection per request ({@code 1ReqPerConn}), 2, 10
 * or 10,000 keep-alive requests per connection, one request each on 10,000 open connections in turn
 * ({@code 10KClients}), a POST with a 13-byte body, and 16 pipelined requests to a read
 * ({@code Pipelined16}: wrk's request in {@code scripts/bench-peers}).
 *
 * <pre>
 *   scripts/jmh ServerTimingBenchmark -prof gc
 * </pre>
 *
 * <p>Peregrine's side: a {@link LoopContext} made as a loop makes it, driven on the benchmark thread
 * ({@link Connection#onReadable}) over {@link FakeSocket}, which hands the connection one request per
 * read and discards what is written; each read is a turn of the loop ({@link LoopContext#newTurn}), so the
 * loop clock is read once per read (per batch: 16 requests for {@code Pipelined16}), as a loop whose wait
 * returned one ready socket reads it. Netty's side: one {@link EmbeddedChannel} per connection; each
 * request is written inbound as a wrapped buffer, the response read outbound and released. Both
 * answer {@code 200}, {@code Content-Type: text/plain}, {@code Content-Length: 13}, "Hello, World!".
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
public class ServerTimingBenchmark {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GET = ("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nUser-Agent: bench\r\n"
            + "Accept: */*\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] POST = ("POST /post HTTP/1.1\r\nHost: localhost\r\nUser-Agent: bench\r\n"
            + "Content-Type: text/plain\r\nContent-Length: 13\r\n\r\nHello, World!").getBytes(StandardCharsets.US_ASCII);
    private static final int CLIENTS = 10_000;
    /** The request wrk sends in {@code scripts/bench-peers}, 16 to a read as its pipelined scenario sends them. */
    private static final byte[] WRK_GET_16 = ("GET /plaintext HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: keep-alive\r\n\r\n")
            .repeat(16).getBytes(StandardCharsets.US_ASCII);

    /** Which server answers. */
    @Param({"peregrine", "netty"})
    public String server;

    private LoopContext ctx;
    private OffLoopExecutor blocking;
    private FakeSocket socket;
    private Connection[] clients;
    private FakeSocket[] clientSockets;
    private EmbeddedChannel[] nettyClients;
    /** The one keep-alive connection of {@code Pipelined16}. */
    private Connection pipelined;
    private FakeSocket pipelinedSocket;
    private EmbeddedChannel nettyPipelined;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        if (server.equals("peregrine")) {
            Server.Builder b = Server.builder();
            ServerConfig config = b.settings();
            blocking = new OffLoopExecutor(1);
            Router router = Router.builder()
                    .add("GET", "/plaintext", (req, res) -> res.contentType("text/plain").body(HELLO))
                    .add("POST", "/post", (req, res) -> res.contentType("text/plain").body(HELLO))
                    .build();
            ctx = new LoopContext(new ServerSetup(config, router, ProtocolSwitches.NONE, blocking, null, false, null).listener(0, null));
            ctx.bind(new BenchmarkThreadLoop());
            socket = new FakeSocket();
        }
    }

    /** The 10,000 connections of {@code 10KClients}, open before the iteration and closed after it. */
    @Setup(Level.Iteration)
    public void openClients() {
        next = 0;
        if (server.equals("peregrine")) {
            pipelinedSocket = new FakeSocket();
            pipelined = ctx.newConnection(pipelinedSocket);
            clients = new Connection[CLIENTS];
            clientSockets = new FakeSocket[CLIENTS];
            for (int i = 0; i < CLIENTS; i++) {
                clientSockets[i] = new FakeSocket();
                clients[i] = ctx.newConnection(clientSockets[i]);
            }
        } else {
            nettyPipelined = new EmbeddedChannel(new HttpServerCodec(), new NettyHello());
            nettyClients = new EmbeddedChannel[CLIENTS];
            for (int i = 0; i < CLIENTS; i++) {
                nettyClients[i] = new EmbeddedChannel(new HttpServerCodec(), new NettyHello());
            }
        }
    }

    @TearDown(Level.Iteration)
    public void closeClients() {
        if (pipelined != null) {
            pipelined.close();
            pipelined = null;
        }
        if (nettyPipelined != null) {
            nettyPipelined.finishAndReleaseAll();
            nettyPipelined = null;
        }
        if (clients != null) {
            for (Connection c : clients) {
                c.close();
            }
            clients = null;
        }
        if (nettyClients != null) {
            for (EmbeddedChannel ch : nettyClients) {
                ch.finishAndReleaseAll();
            }
            nettyClients = null;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (ctx != null) {
            ctx.free();
            blocking.shutdown();
        }
    }

    @Benchmark
    public long serverGet1ReqPerConn() {
        return connection(GET, 1);
    }

    @Benchmark
    @OperationsPerInvocation(2)
    public long serverGet2ReqPerConn() {
        return connection(GET, 2);
    }

    @Benchmark
    @OperationsPerInvocation(10)
    public long serverGet10ReqPerConn() {
        return connection(GET, 10);
    }

    @Benchmark
    @OperationsPerInvocation(10_000)
    public long serverGet10KReqPerConn() {
        return connection(GET, 10_000);
    }

    @Benchmark
    public long serverPost1ReqPerConn() {
        return connection(POST, 1);
    }

    /** One keep-alive request on the next of 10,000 open connections. */
    @Benchmark
    public long serverGet1ReqPerConn10KClients() {
        int i = next;
        next = i + 1 == CLIENTS ? 0 : i + 1;
        if (clients != null) {
            FakeSocket s = clientSockets[i];
            s.feed(GET, 1, false);
            ctx.newTurn(); // one ready socket a turn, as a loop's wait hands it: the read ticks the clock
            clients[i].onReadable();
            return s.written;
        }
        return netty(nettyClients[i], GET);
    }

    /** 16 pipelined keep-alive requests in one read, as {@code scripts/bench-peers} sends them; one op per request. */
    @Benchmark
    @OperationsPerInvocation(16)
    public long serverGetPipelined16() {
        if (pipelined != null) {
            pipelinedSocket.feed(WRK_GET_16, 1, false);
            ctx.newTurn();
            pipelined.onReadable();
            return pipelinedSocket.written;
        }
        return netty(nettyPipelined, WRK_GET_16);
    }

    /** A new connection that receives {@code count} requests one read each, then the peer's close. */
    private long connection(byte[] request, int count) {
        if (ctx != null) {
            FakeSocket s = socket;
            s.feed(request, count, true);
            ctx.newTurn(); // the accept's turn
            Connection c = ctx.newConnection(s);
            for (int turns = 0; !c.isClosed(); turns++) {
                if (turns > count + 8) {
                    throw new IllegalStateException("the connection did not close after its peer did");
                }
                ctx.newTurn();
                c.onReadable();
            }
            return s.written;
        }
        EmbeddedChannel ch = new EmbeddedChannel(new HttpServerCodec(), new NettyHello());
        long written = 0;
        for (int i = 0; i < count; i++) {
            written += netty(ch, request);
        }
        ch.finishAndReleaseAll();
        return written;
    }

    /** Writes {@code request} into {@code ch} and returns the bytes of what it answered (released). */
    public static long netty(EmbeddedChannel ch, byte[] request) {
        ch.writeInbound(Unpooled.wrappedBuffer(request));
        long written = 0;
        Object out;
        while ((out = ch.readOutbound()) != null) {
            if (out instanceof ByteBuf) {
                written += ((ByteBuf) out).readableBytes();
            }
            ReferenceCountUtil.release(out);
        }
        return written;
    }

    /** Netty's side: answers each request at its last content, as a Netty server would. */
    static final class NettyHello extends ChannelInboundHandlerAdapter {
        private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain");
        private static final AsciiString SERVER = AsciiString.cached("Netty");
        /** A fixed Date value: Peregrine's encoder rewrites its cached date line once a second, as good as free. */
        private static final AsciiString DATE = AsciiString.cached("Mon, 23 Nov 2026 12:00:00 GMT");
        private static final ByteBuf BODY = Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(HELLO));
        private boolean keepAlive;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                keepAlive = HttpUtil.isKeepAlive((HttpRequest) msg);
            }
            if (msg instanceof LastHttpContent) {
                DefaultFullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        BODY.duplicate(), false);
                res.headers().set(HttpHeaderNames.CONTENT_TYPE, TEXT_PLAIN)
                        .set(HttpHeaderNames.SERVER, SERVER)
                        .set(HttpHeaderNames.DATE, DATE)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, HELLO.length);
                if (!keepAlive) {
                    res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                }
                ctx.write(res);
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** The benchmark thread is the loop: tasks run at once (none are made for inline handlers). */
    public static final class BenchmarkThreadLoop implements EventLoop {
        @Override
        public void execute(Runnable task) {
            task.run();
        }

        @Override
        public boolean inEventLoop() {
            return true;
        }

        @Override
        public void connect(InetSocketAddress address, EndpointLayer layer, Protocol protocol, long timeoutMillis,
                            dev.peregrine.loop.ConnectCallback callback) {
            throw new UnsupportedOperationException("no outbound connections in this benchmark");
        }
    }

    /**
     * A socket that returns one request per read ({@code count} times), then end of stream if asked,
     * and takes every write whole, counting it. Reused: {@link #feed} rewinds it.
     */
    public static final class FakeSocket implements SocketEndpoint {
        private static final InetSocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000);
        private byte[] request;
        private int left;
        private boolean eof;
        public long written;

        /** The next {@code count} reads return {@code request} each; then end of stream if {@code eofAfter}, else nothing. */
        public void feed(byte[] request, int count, boolean eofAfter) {
            this.request = request;
            this.left = count;
            this.eof = eofAfter;
            this.written = 0;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (left == 0) {
                return eof ? -1 : 0;
            }
            left--;
            dst.put(request);
            return request.length;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            written += n;
            return n;
        }

        @Override
        public void readInterest(boolean on) {
        }

        @Override
        public void writeInterest(boolean on) {
        }

        @Override
        public void shutdownOutput() {
        }

        @Override
        public void close() {
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return PEER;
        }
    }
}
