package dev.peregrine.jmh.server;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.h2.Http2Settings;
import dev.peregrine.jmh.server.ServerTimingBenchmark.BenchmarkThreadLoop;
import dev.peregrine.jmh.server.ServerTimingBenchmark.FakeSocket;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.route.Router;
import dev.peregrine.server.Http2Setup;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.server.ServerSetup;
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

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/2 server's cost and allocation per request (issue 28's target: 0 B/op for a request whose
 * fields are all indexed), in memory as {@link ServerTimingBenchmark} measures HTTP/1.1: a
 * {@link LoopContext} made as a loop makes it, with {@link Http2Setup} on its protocol switches, driven
 * on the benchmark thread over {@link FakeSocket}, one HEADERS frame per read, the response (HEADERS
 * and 13 bytes of DATA) written and discarded.
 * <pre>
 *   scripts/jmh Http2ServerBenchmark -prof gc
 * </pre>
 * The connection opens with the preface, a SETTINGS and a WINDOW_UPDATE raising the connection's
 * window to 2^31-1 (so no op carries one), then one request that puts its fields into the server's
 * HPACK table with incremental indexing (RFC 7541 §6.2.1), as h2load and browsers do. Every measured
 * request is then a block of indexed fields only (§6.1):
 * <pre>
 *   fields=minimal  :method GET (2), :scheme http (6), :path /plaintext (63), :authority localhost (62)
 *   fields=h2load   an indexing client (how h2load was first modelled here): those (:path 65, :authority 127.0.0.1:8080 64), accept (63: any type),
 *                   accept-encoding gzip, deflate (16, static), user-agent h2load nghttp2/1.52.0 (62)
 *   fields=h2load152 what h2load (nghttp2) 1.52 really sends, captured: :path as a Huffman literal without
 *                   indexing (nghttp2 never indexes :path), :scheme http (6), :authority (63), GET (2),
 *                   user-agent (62): 13 bytes, so the block is not indexed fields only
 * </pre>
 * {@code getIndexed}: one request per read; {@code getIndexed100}: 100 streams' HEADERS in one read,
 * as h2load's {@code -m 100} delivers them (one op is one request). A new connection is opened every
 * {@link #PER_CONNECTION} requests (its setup is spread over them: well under 1 B/op).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
public class Http2ServerBenchmark {
    static final int PER_CONNECTION = 1_000_000;
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private LoopContext ctx;
    private OffLoopExecutor blocking;
    private FakeSocket socket;
    private Connection connection;
    /** The measured request: a HEADERS frame whose stream id is patched per request. */
    private byte[] request;
    private byte[] requests100;
    private int stream;

    /** h2load 1.52's first block, captured: :path a Huffman literal without indexing, :scheme, :authority and user-agent indexed as they go. */
    private static final byte[] H2LOAD_152_FIRST = hex("048762ba066a925f2986418b089d5c0b8170dc682071ff827a8f9c541c722954d3a5358980aed89707");
    /** And every block after it: the same :path literal, then :scheme http (6), :authority (63), GET (2), user-agent (62). */
    private static final byte[] H2LOAD_152_NEXT = hex("048762ba066a925f2986bf82be");

    /** Which fields each request carries (see the class javadoc). */
    @Param({"minimal", "h2load", "h2load152"})
    public String fields;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        ServerConfig config = Server.builder().settings();
        blocking = new OffLoopExecutor(1);
        Router router = Router.builder()
                .add("GET", "/plaintext", (req, res) -> res.contentType("text/plain").body(HELLO))
                .build();
        ProtocolSwitches switches = Http2Setup.register(ProtocolSwitches.NONE, Http2Settings.DEFAULTS);
        ctx = new LoopContext(new ServerSetup(config, router, switches, blocking, null, false, null).listener(0, null));
        ctx.bind(new BenchmarkThreadLoop());
        socket = new FakeSocket();
        byte[] block = fields.equals("minimal")
                ? new byte[] {(byte) 0x82, (byte) 0x86, (byte) 0xbf, (byte) 0xbe}
                : fields.equals("h2load152") ? H2LOAD_152_NEXT
                : new byte[] {(byte) 0x82, (byte) 0x86, (byte) 0xc1, (byte) 0xc0, (byte) 0xbf, (byte) 0x90, (byte) 0xbe};
        request = frame(0x1, 0x5, 0, block);
        requests100 = new byte[100 * request.length];
        for (int i = 0; i < 100; i++) {
            System.arraycopy(request, 0, requests100, i * request.length, request.length);
        }
        open();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        connection.close();
        blocking.shutdown();
    }

    /** A new connection: preface, settings, window, and the request that fills the HPACK table. */
    private void open() throws IOException {
        if (connection != null) {
            connection.close();
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(PREFACE);
        b.writeBytes(frame(0x4, 0, 0, new byte[0]));
        int raise = Integer.MAX_VALUE - 65_535;
        b.writeBytes(frame(0x8, 0, 0, new byte[] {(byte) (raise >>> 24), (byte) (raise >>> 16), (byte) (raise >>> 8), (byte) raise}));
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        if (fields.equals("h2load152")) {
            block.writeBytes(H2LOAD_152_FIRST);
        } else {
            indexingBlock(block);
        }
        b.writeBytes(frame(0x1, 0x5, 1, block.toByteArray()));
        socket.feed(b.toByteArray(), 1, false);
        connection = ctx.newConnection(socket);
        connection.onReadable();
        if (socket.written == 0) {
            throw new IllegalStateException("the server did not answer the first request");
        }
        stream = 1;
    }

    private void indexingBlock(ByteArrayOutputStream block) {
        block.writeBytes(new byte[] {(byte) 0x82, (byte) 0x86});
        block.write(0x44); // literal with incremental indexing, name :path (4)
        block.write(10);
        block.writeBytes("/plaintext".getBytes(StandardCharsets.US_ASCII));
        String authority = fields.equals("minimal") ? "localhost" : "127.0.0.1:8080";
        block.write(0x41); // literal with incremental indexing, name :authority (1)
        block.write(authority.length());
        block.writeBytes(authority.getBytes(StandardCharsets.US_ASCII));
        if (!fields.equals("minimal")) {
            block.write(0x40 | 19); // accept (19): */*
            block.write(3);
            block.writeBytes("*/*".getBytes(StandardCharsets.US_ASCII));
            block.write(0x80 | 16); // accept-encoding: gzip, deflate (static 16)
            String ua = "h2load nghttp2/1.52.0";
            block.write(0x40 | 58); // user-agent (58)
            block.write(ua.length());
            block.writeBytes(ua.getBytes(StandardCharsets.US_ASCII));
        }
    }

    @Benchmark
    public long getIndexed() throws IOException {
        if (stream >= 2 * PER_CONNECTION) {
            open();
        }
        stream += 2;
        byte[] r = request;
        r[5] = (byte) (stream >>> 24);
        r[6] = (byte) (stream >>> 16);
        r[7] = (byte) (stream >>> 8);
        r[8] = (byte) stream;
        socket.feed(r, 1, false);
        connection.onReadable();
        return socket.written;
    }

    /** 100 streams' HEADERS in one read (h2load -m 100). */
    @Benchmark
    @OperationsPerInvocation(100)
    public long getIndexed100() throws IOException {
        if (stream >= 2 * PER_CONNECTION) {
            open();
        }
        byte[] r = requests100;
        for (int i = 0; i < 100; i++) {
            stream += 2;
            int at = i * request.length;
            r[at + 5] = (byte) (stream >>> 24);
            r[at + 6] = (byte) (stream >>> 16);
            r[at + 7] = (byte) (stream >>> 8);
            r[at + 8] = (byte) stream;
        }
        socket.feed(r, 1, false);
        connection.onReadable();
        return socket.written;
    }

    private static byte[] hex(String h) {
        return java.util.HexFormat.of().parseHex(h);
    }

    static byte[] frame(int type, int flags, int streamId, byte[] payload) {
        byte[] f = new byte[9 + payload.length];
        f[0] = (byte) (payload.length >>> 16);
        f[1] = (byte) (payload.length >>> 8);
        f[2] = (byte) payload.length;
        f[3] = (byte) type;
        f[4] = (byte) flags;
        f[5] = (byte) (streamId >>> 24);
        f[6] = (byte) (streamId >>> 16);
        f[7] = (byte) (streamId >>> 8);
        f[8] = (byte) streamId;
        System.arraycopy(payload, 0, f, 9, payload.length);
        return f;
    }
}
