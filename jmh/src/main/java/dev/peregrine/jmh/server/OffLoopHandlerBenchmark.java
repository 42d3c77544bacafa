package dev.peregrine.jmh.server;

import dev.peregrine.Completion;
import dev.peregrine.Handlers;
import dev.peregrine.Server;
import dev.peregrine.offloop.OffLoopExecutor;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The same 13-byte answer from three kinds of handler, end to end over loopback with one connection:
 * {@code inline} on the loop, {@code blocking} ({@link Handlers#blocking}: a virtual thread on JDK 21+,
 * the platform pool on 17) and {@code async} ({@code res.async()} completed by another thread). The
 * difference to {@code inline} is the cost of the hand-off: request copy, thread switch there and
 * back through the loop's task queue. Run with {@code -prof gc} for B/op (client included; the
 * client allocates nothing per operation).
 *
 * <pre>
 *   scripts/jmh OffLoopHandlerBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
public class OffLoopHandlerBenchmark {
    private static final String HELLO = "Hello, World!";
    private static final int DEPTH = 16;

    @Param({"inline", "blocking", "async"})
    public String handler;

    private ExecutorService completer;
    private Server server;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private byte[] request;
    private byte[] batch;
    private byte[] readBuffer;
    private int responseLength;

    @Setup(Level.Trial)
    public void start() throws IOException {
        completer = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "async-completer");
            t.setDaemon(true);
            return t;
        });
        server = Server.builder().port(0).threads(1)
                .get("/h/inline", (req, res) -> res.text(HELLO))
                .get("/h/blocking", Handlers.blocking((req, res) -> res.text(HELLO)))
                .get("/h/async", (req, res) -> {
                    Completion c = res.async();
                    completer.execute(() -> {
                        c.response().text(HELLO);
                        c.complete();
                    });
                })
                .start();
        request = ("GET /h/" + handler + " HTTP/1.1\r\nHost: bench\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
        out = socket.getOutputStream();
        in = socket.getInputStream();
        batch = new byte[request.length * DEPTH];
        for (int i = 0; i < DEPTH; i++) {
            System.arraycopy(request, 0, batch, i * request.length, request.length);
        }
        out.write(request);
        byte[] first = new byte[4096];
        int n = 0;
        while (true) {
            n += in.read(first, n, first.length - n);
            String text = new String(first, 0, n, StandardCharsets.US_ASCII);
            int headEnd = text.indexOf("\r\n\r\n");
            if (headEnd >= 0 && n >= headEnd + 4 + HELLO.length()) {
                responseLength = headEnd + 4 + HELLO.length();
                break;
            }
        }
        readBuffer = new byte[responseLength * DEPTH];
        System.err.println("handler=" + handler + " virtualThreads=" + OffLoopExecutor.virtualThreads());
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        socket.close();
        server.close();
        completer.shutdownNow();
    }

    /** One request in flight: write, wait for the response. */
    @Benchmark
    public int keepAlive() throws IOException {
        out.write(request);
        return readFully(responseLength);
    }

    /** Sixteen requests in one write; off-loop ones are answered one after another, in order. */
    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public int pipelined16() throws IOException {
        out.write(batch);
        return readFully(responseLength * DEPTH);
    }

    private int readFully(int want) throws IOException {
        int got = 0;
        while (got < want) {
            int n = in.read(readBuffer, got, want - got);
            if (n < 0) {
                throw new IOException("server closed");
            }
            got += n;
        }
        return got;
    }
}
