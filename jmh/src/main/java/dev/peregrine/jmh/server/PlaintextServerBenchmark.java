package dev.peregrine.jmh.server;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
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
 * The plaintext app end to end over loopback: one client connection writes one request (keep-alive)
 * or sixteen (the TechEmpower pipeline) and reads the responses. The score is
 * time per request, client included; compare transports and versions with it, and use the peer
 * harness (scripts/bench-peers) for server CPU per request.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
public class PlaintextServerBenchmark {
    private static final byte[] REQUEST = ("GET /plaintext HTTP/1.1\r\nHost: bench\r\n"
            + "User-Agent: jmh\r\nAccept: text/plain\r\n\r\n").getBytes(StandardCharsets.US_ASCII);

    @Param({"nio"})
    public String transport;

    private static final int DEPTH = 16;

    private Server server;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private byte[] batch;
    private byte[] readBuffer;
    private int responseLength;

    @Setup(Level.Trial)
    public void start() throws IOException {
        server = PlaintextApp.routes(Server.builder().port(0).threads(1).transport(transport)).start();
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", server.port()));
        out = socket.getOutputStream();
        in = socket.getInputStream();
        batch = new byte[REQUEST.length * DEPTH];
        for (int i = 0; i < DEPTH; i++) {
            System.arraycopy(REQUEST, 0, batch, i * REQUEST.length, REQUEST.length);
        }
        // Learn the response length (constant: the Date field has a fixed width).
        out.write(REQUEST);
        byte[] first = new byte[4096];
        int n = 0;
        while (true) {
            n += in.read(first, n, first.length - n);
            String text = new String(first, 0, n, StandardCharsets.US_ASCII);
            int headEnd = text.indexOf("\r\n\r\n");
            if (headEnd >= 0 && n >= headEnd + 4 + 13) {
                responseLength = headEnd + 4 + 13;
                break;
            }
        }
        readBuffer = new byte[responseLength * DEPTH];
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        socket.close();
        server.close();
    }

    /** One request in flight: write, wait for the response. */
    @Benchmark
    public int keepAlive() throws IOException {
        out.write(REQUEST);
        return readFully(responseLength);
    }

    /** Sixteen requests in one write, then their sixteen responses; the score is per request. */
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
