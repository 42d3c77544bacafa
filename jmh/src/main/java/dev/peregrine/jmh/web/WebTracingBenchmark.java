package dev.peregrine.jmh.web;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.web.AccessLog;
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
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * What request ids and the access log cost per request: the plaintext route over loopback, sixteen
 * pipelined requests per write on one connection and one server loop (so the server's share of the
 * time shows), with the features off, ids on, the log on (combined, to a discarding stream: the
 * loop's formatting and hand-off, not the disk) and both. The client sends its own valid
 * {@code X-Request-Id}, so every response has the same length.
 * <pre>
 *   scripts/jmh WebTracingBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
public class WebTracingBenchmark {
    private static final byte[] REQUEST = ("GET /plaintext HTTP/1.1\r\nHost: bench\r\nUser-Agent: jmh\r\n"
            + "X-Request-Id: bench-0001\r\nAccept: text/plain\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    private static final int DEPTH = 16;

    @Param({"off", "ids", "log", "ids+log"})
    public String features;

    private Server server;
    private AccessLog log;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private byte[] batch;
    private byte[] readBuffer;
    private int responseLength;

    @Setup(Level.Trial)
    public void start() throws IOException {
        Server.Builder b = PlaintextApp.routes(Server.builder().host("127.0.0.1").port(0).threads(1).transport("nio"));
        if (features.contains("ids")) {
            b.requestIds(true);
        }
        if (features.contains("log")) {
            log = AccessLog.builder().to(OutputStream.nullOutputStream()).build();
            b.accessLog(log);
        }
        server = b.start();
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
        out = socket.getOutputStream();
        in = socket.getInputStream();
        batch = new byte[REQUEST.length * DEPTH];
        for (int i = 0; i < DEPTH; i++) {
            System.arraycopy(REQUEST, 0, batch, i * REQUEST.length, REQUEST.length);
        }
        responseLength = learnResponseLength();
        readBuffer = new byte[responseLength * DEPTH];
    }

    /** The response length is constant (fixed-width Date, the client's id): learn it from one exchange. */
    private int learnResponseLength() throws IOException {
        out.write(REQUEST);
        byte[] first = new byte[4096];
        int n = 0;
        while (true) {
            int r = in.read(first, n, first.length - n);
            if (r < 0) {
                throw new IOException("server closed");
            }
            n += r;
            String text = new String(first, 0, n, StandardCharsets.US_ASCII);
            int headEnd = text.indexOf("\r\n\r\n");
            if (headEnd >= 0 && n >= headEnd + 4 + 13) {
                return headEnd + 4 + 13;
            }
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        socket.close();
        server.close();
        if (log != null) {
            System.out.println("access log: " + log.written() + " lines written, " + log.dropped() + " dropped");
        }
    }

    /** Sixteen requests in one write, then their responses; the score is per request. */
    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public int pipelined16() throws IOException {
        out.write(batch);
        int got = 0;
        int want = responseLength * DEPTH;
        while (got < want) {
            int r = in.read(readBuffer, got, want - got);
            if (r < 0) {
                throw new IOException("server closed");
            }
            got += r;
        }
        return got;
    }
}
