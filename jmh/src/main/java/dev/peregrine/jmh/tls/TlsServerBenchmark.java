package dev.peregrine.jmh.tls;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.tls.DevCertificate;
import dev.peregrine.tls.TlsConfig;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;

/**
 * HTTPS round trips against Peregrine and, in the same run, Netty with the JDK's {@code SslHandler}
 * ({@code SslProvider.JDK}, {@code HttpServerCodec}, responses flushed once per read batch like
 * Peregrine's): one server loop thread each, the same development certificate (EC P-256), the same
 * client (a blocking JDK {@link SSLSocket} on the benchmark thread), keep-alive ({@code depth=1}) and
 * pipelined ({@code depth=16}).
 *
 * <p>Besides the time per round trip, the trial prints the <b>server loop thread's CPU time and heap
 * allocation per request</b> (ThreadMXBean), the figures to compare: the client's cost is the same for
 * both, and {@code -prof gc} would count the client's allocation too.
 * Run on a quiet machine, e.g.
 * {@code java -jar jmh/target/benchmarks.jar TlsServerBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class TlsServerBenchmark {
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GET = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @Param({"peregrine", "netty"})
    public String server;

    @Param({"TLSv1.3", "TLSv1.2"})
    public String protocol;

    @Param({"1", "16"})
    public int depth;

    private DevCertificate cert;
    private Server peregrine;
    private EventLoopGroup nettyGroup;
    private Channel nettyChannel;
    private SSLSocket socket;
    private OutputStream out;
    private InputStream in;
    private byte[] batch;
    private final byte[] buf = new byte[64 * 1024];
    private long requests;
    private long serverCpuStart;
    private long serverAllocStart;

    @Setup(Level.Trial)
    public void start() throws Exception {
        cert = DevCertificate.generate();
        int port;
        if (server.equals("peregrine")) {
            peregrine = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1)
                    .https(0, TlsConfig.builder().identity(cert.chain(), cert.privateKey()).build()).start();
            port = peregrine.httpsPort();
        } else {
            port = startNetty();
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("dev", cert.certificate());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), null);
        socket = (SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        SSLParameters p = socket.getSSLParameters();
        p.setProtocols(new String[]{protocol});
        p.setApplicationProtocols(new String[]{"http/1.1"});
        socket.setSSLParameters(p);
        socket.startHandshake();
        out = socket.getOutputStream();
        in = socket.getInputStream();
        batch = new byte[GET.length * depth];
        for (int i = 0; i < depth; i++) {
            System.arraycopy(GET, 0, batch, i * GET.length, GET.length);
        }
        roundTrip(); // the loop thread now exists and has served once
        requests = 0;
        serverCpuStart = serverCpuNanos();
        serverAllocStart = serverAllocatedBytes();
    }

    private int startNetty() throws Exception {
        SslContext ssl = SslContextBuilder.forServer(cert.privateKey(), cert.chain())
                .sslProvider(SslProvider.JDK)
                .protocols("TLSv1.3", "TLSv1.2")
                .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ApplicationProtocolNames.HTTP_1_1))
                .build();
        nettyGroup = new MultiThreadIoEventLoopGroup(1, (java.util.concurrent.ThreadFactory) r -> new Thread(r, "netty-loop"), NioIoHandler.newFactory());
        nettyChannel = new ServerBootstrap().group(nettyGroup).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(ssl.newHandler(ch.alloc()), new HttpServerCodec(), new Hello());
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
        return ((InetSocketAddress) nettyChannel.localAddress()).getPort();
    }

    /** Netty's side of /plaintext: one response per request, flushed once per read batch. */
    private static final class Hello extends ChannelInboundHandlerAdapter {
        private static final ByteBuf BODY = Unpooled.unreleasableBuffer(Unpooled.directBuffer().writeBytes(HELLO)).asReadOnly();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest) {
                    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, BODY.duplicate());
                    r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain")
                            .set(HttpHeaderNames.SERVER, "netty")
                            .setInt(HttpHeaderNames.CONTENT_LENGTH, HELLO.length);
                    ctx.write(r, ctx.voidPromise());
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    @Benchmark
    public int roundTrip() throws IOException {
        out.write(batch);
        int seen = 0;
        int total = 0;
        // Count complete responses by their body, the last bytes of each response.
        while (seen < depth) {
            int n = in.read(buf);
            if (n < 0) {
                throw new IOException("server closed");
            }
            for (int i = 0; i < n; i++) {
                if (buf[i] == '!') {
                    seen++;
                }
            }
            total += n;
        }
        requests += depth;
        return total;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        long cpu = serverCpuNanos() - serverCpuStart;
        long allocated = serverAllocatedBytes() - serverAllocStart;
        if (requests > 0) {
            System.out.printf("%n%s %s depth=%d: server loop CPU %.0f ns/request, heap %.0f B/request, over %d requests%n",
                    server, protocol, depth, cpu / (double) requests, allocated / (double) requests, requests);
        }
        socket.close();
        if (peregrine != null) {
            peregrine.close();
        }
        if (nettyGroup != null) {
            nettyChannel.close().sync();
            nettyGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    /** CPU time of the serving loop threads (Peregrine's loops or Netty's loop), nanoseconds. */
    private long serverCpuNanos() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : serverThreads()) {
            sum += Math.max(0, mx.getThreadCpuTime(t.getId()));
        }
        return sum;
    }

    /** Heap allocated by the serving loop threads, bytes ({@code -prof gc} would add the client's). */
    private long serverAllocatedBytes() {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : serverThreads()) {
            sum += Math.max(0, mx.getThreadAllocatedBytes(t.getId()));
        }
        return sum;
    }

    private java.util.List<Thread> serverThreads() {
        String prefix = peregrine != null ? "peregrine-" : "netty-loop";
        java.util.List<Thread> list = new java.util.ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith(prefix) && !t.getName().startsWith("peregrine-tls-task")) {
                list.add(t);
            }
        }
        return list;
    }
}
