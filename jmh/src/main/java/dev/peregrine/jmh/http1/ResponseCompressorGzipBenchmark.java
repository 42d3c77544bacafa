package dev.peregrine.jmh.http1;

import dev.peregrine.Compression;
import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.jmh.server.ServerTimingBenchmark;
import dev.peregrine.jmh.server.ServerTimingBenchmark.BenchmarkThreadLoop;
import dev.peregrine.jmh.server.ServerTimingBenchmark.FakeSocket;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.server.ServerSetup;
import dev.peregrine.route.Router;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContentCompressor;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A 4 KiB JSON answer gzip'd on the fly (level 6 on both sides), one request per operation on a kept-alive
 * connection, in memory as {@code ServerTimingBenchmark} runs the servers: Peregrine with
 * {@code compression(Compression.defaults())}, beside Netty's {@code EmbeddedChannel} with
 * {@code HttpServerCodec}, {@code HttpContentCompressor} and a handler answering the same bytes. The
 * request carries {@code Accept-Encoding: gzip}. With {@code -prof gc}, B/op is what one compressed
 * response allocates.
 * <pre>
 *   scripts/jmh ResponseCompressorGzipBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
public class ResponseCompressorGzipBenchmark {
    private static final byte[] REQUEST = ("GET /json HTTP/1.1\r\nHost: localhost\r\nUser-Agent: bench\r\n"
            + "Accept: */*\r\nAccept-Encoding: gzip\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    static final byte[] JSON = json();

    @Param({"peregrine", "netty"})
    public String server;

    private OffLoopExecutor blocking;
    private LoopContext ctx;
    private FakeSocket socket;
    private Connection connection;
    private EmbeddedChannel netty;

    /** About 4 KiB of JSON: an array of small objects, as an API answers. */
    private static byte[] json() {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; b.length() < 4096 - 80; i++) {
            b.append("{\"id\":").append(i).append(",\"name\":\"item ").append(i).append("\",\"ok\":true},");
        }
        b.setLength(b.length() - 1);
        return b.append(']').toString().getBytes(StandardCharsets.UTF_8);
    }

    @Setup
    public void setUp() {
        if (server.equals("peregrine")) {
            ServerConfig config = Server.builder().settings();
            blocking = new OffLoopExecutor(1);
            Router router = Router.builder()
                    .add("GET", "/json", (req, res) -> res.contentType("application/json").body(JSON)).build();
            ctx = new LoopContext(new ServerSetup(config, router, ProtocolSwitches.NONE, blocking, Compression.defaults(), false, null)
                    .listener(0, null));
            ctx.bind(new BenchmarkThreadLoop());
            socket = new FakeSocket();
            connection = ctx.newConnection(socket);
        } else {
            netty = new EmbeddedChannel(new HttpServerCodec(), new HttpContentCompressor(), new NettyJson());
        }
        long first = serve();
        if (first < 100 || first >= JSON.length) {
            throw new IllegalStateException(server + " did not answer compressed: " + first + " bytes");
        }
    }

    @TearDown
    public void tearDown() {
        if (ctx != null) {
            connection.close();
            ctx.free();
            blocking.shutdown();
        } else {
            netty.finishAndReleaseAll();
        }
    }

    /** One request; returns the bytes written. */
    @Benchmark
    public long serve() {
        if (ctx != null) {
            socket.feed(REQUEST, 1, false);
            connection.onReadable();
            return socket.written;
        }
        return ServerTimingBenchmark.netty(netty, REQUEST);
    }

    /** Netty's side: the JSON at each request's last content; the compressor codes it. */
    static final class NettyJson extends ChannelInboundHandlerAdapter {
        private static final AsciiString JSON_TYPE = AsciiString.cached("application/json");
        private static final ByteBuf BODY = Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(JSON));

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof LastHttpContent) {
                DefaultFullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        BODY.duplicate(), false);
                res.headers().set(HttpHeaderNames.CONTENT_TYPE, JSON_TYPE).setInt(HttpHeaderNames.CONTENT_LENGTH, JSON.length);
                ctx.write(res);
            }
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }
}
