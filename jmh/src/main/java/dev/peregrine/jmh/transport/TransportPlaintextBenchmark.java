package dev.peregrine.jmh.transport;

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
 * The plaintext app end to end over loopback on each transport, NIO against epoll in the same run,
 * one server loop. The {@code *Connections} variants send one request (keep-alive) or sixteen
 * (pipelined) on each of {@value #CONNECTIONS} sockets before reading any answer, so that each wake-up
 * of the server finds several sockets ready — where the transports differ most. The score is time per
 * request, client included:
 * <pre>
 *   scripts/jmh TransportPlaintextBenchmark                 # nio and epoll
 *   scripts/jmh TransportPlaintextBenchmark -p transport=epoll -prof gc
 * </pre>
 * For server CPU per request against other servers, use {@code scripts/bench-peers}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
public class TransportPlaintextBenchmark {
    private static final byte[] REQUEST = ("GET /plaintext HTTP/1.1\r\nHost: bench\r\n"
            + "User-Agent: jmh\r\nAccept: text/plain\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    private static final int DEPTH = 16;
    static final int CONNECTIONS = 16;

    @Param({"nio", "epoll", "io_uring"})
    public String transport;

    private Server server;
    private Socket[] sockets;
    private OutputStream[] outs;
    private InputStream[] ins;
    private byte[] batch;
    private byte[] readBuffer;
    private int responseLength;

    @Setup(Level.Trial)
    public void start() throws IOException {
        server = PlaintextApp.routes(Server.builder().host("127.0.0.1").port(0).threads(1).transport(transport)).start();
        sockets = new Socket[CONNECTIONS];
        outs = new OutputStream[CONNECTIONS];
        ins = new InputStream[CONNECTIONS];
        for (int i = 0; i < CONNECTIONS; i++) {
            Socket s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress("127.0.0.1", server.port()));
            sockets[i] = s;
            outs[i] = s.getOutputStream();
            ins[i] = s.getInputStream();
        }
        batch = new byte[REQUEST.length * DEPTH];
        for (int i = 0; i < DEPTH; i++) {
            System.arraycopy(REQUEST, 0, batch, i * REQUEST.length, REQUEST.length);
        }
        responseLength = learnResponseLength(outs[0], ins[0]);
        readBuffer = new byte[responseLength * DEPTH];
    }

    /** The response length is constant (the Date field has a fixed width): learn it from one exchange. */
    private static int learnResponseLength(OutputStream out, InputStream in) throws IOException {
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
        for (Socket s : sockets) {
            s.close();
        }
        server.close();
    }

    /** One connection, one request in flight. */
    @Benchmark
    public int keepAlive() throws IOException {
        outs[0].write(REQUEST);
        return readFully(ins[0], responseLength);
    }

    /** One connection, sixteen requests in one write, then their responses; the score is per request. */
    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public int pipelined16() throws IOException {
        outs[0].write(batch);
        return readFully(ins[0], responseLength * DEPTH);
    }

    /** One request in flight on each connection; the score is per request. */
    @Benchmark
    @OperationsPerInvocation(CONNECTIONS)
    public int keepAliveConnections() throws IOException {
        for (OutputStream out : outs) {
            out.write(REQUEST);
        }
        int got = 0;
        for (InputStream in : ins) {
            got += readFully(in, responseLength);
        }
        return got;
    }

    /** Sixteen pipelined requests on each connection; the score is per request. */
    @Benchmark
    @OperationsPerInvocation(CONNECTIONS * DEPTH)
    public int pipelined16Connections() throws IOException {
        for (OutputStream out : outs) {
            out.write(batch);
        }
        int got = 0;
        for (InputStream in : ins) {
            got += readFully(in, responseLength * DEPTH);
        }
        return got;
    }

    private int readFully(InputStream in, int want) throws IOException {
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
