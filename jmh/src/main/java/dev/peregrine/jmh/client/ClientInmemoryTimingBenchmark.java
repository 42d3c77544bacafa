package dev.peregrine.jmh.client;

import dev.peregrine.Server;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.Dialer;
import dev.peregrine.client.HttpClient;
import dev.peregrine.client.ReusableResponse;
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
import org.openjdk.jmh.infra.BenchmarkParams;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * fasthttp's in-memory client rows ({@code client_timing_test.go}): {@code ClientGetEndToEnd{1,10,100,1000}Inmemory}
 * and {@code ClientDoFastServer}, the client on {@link Dialer#inMemory} (no socket: the connection layer
 * over {@code transport.MemoryPipe}) on the reuse path, one client loop, one server loop, {@value #CALLS}
 * calls per invocation (in batches of {@code n} sent together, all awaited), so the score is the
 * wall time per request. Beside {@link ClientTimingBenchmark}'s TCP rows.
 * <ul>
 *   <li>{@code clientGetEndToEndInmemory}: {@code GET /plaintext} of the plaintext app, {@code n} calls in
 *       flight on as many connections (JMH forks per {@code n});</li>
 *   <li>{@code clientDoFastServer}: one call at a time to the fastest server there is here, one inline
 *       route answering 13 constant bytes; fasthttp's row answers from a fake connection, with no server
 *       at all: here the server's loop still runs, and {@link ClientCpuMeter} takes its CPU out of the
 *       printed client CPU per request, the pure client cost the row is about.</li>
 * </ul>
 * The peers (JDK HttpClient, reactor-netty, Apache 5) have no rows here: none can reach a Peregrine server
 * without a socket (Netty's {@code LocalChannel} reaches only a Netty server).
 * <pre>
 *   scripts/jmh ClientInmemoryTimingBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "--enable-native-access=ALL-UNNAMED"})
public class ClientInmemoryTimingBenchmark {
    static final int CALLS = 1000;
    private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);

    /** Calls in flight for the EndToEnd rows (fasthttp's 1, 10, 100, 1000); DoFastServer makes one at a time. */
    @State(Scope.Benchmark)
    public static class InFlight {
        @Param({"1", "10", "100", "1000"})
        public int n;
    }

    private final ClientCpuMeter cpu = new ClientCpuMeter();
    private long requests;
    private Server server;
    private HttpClient client;
    private ClientRequest plaintext;
    private ClientRequest fast;
    private final ReusableResponse[] responses = new ReusableResponse[CALLS];
    private final CallbackWaiter waiter = new CallbackWaiter();

    @Setup(Level.Trial)
    public void start() {
        server = cpu.startServer(() -> PlaintextApp.routes(Server.builder().host("127.0.0.1").port(0).threads(1))
                .get("/fast", (req, res) -> res.body(HELLO))
                .start());
        client = HttpClient.builder().maxConnsPerHost(CALLS).dialer(Dialer.inMemory(server)).build();
        plaintext = ClientRequest.get("http://app.local/plaintext");
        fast = ClientRequest.get("http://app.local/fast");
        for (int i = 0; i < CALLS; i++) {
            responses[i] = new ReusableResponse();
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close();
        server.close();
    }

    @Setup(Level.Iteration)
    public void beginIteration() {
        cpu.begin(requests);
    }

    @TearDown(Level.Iteration)
    public void endIteration(BenchmarkParams params) {
        String inFlight = params.getParam("n");
        cpu.end(params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1)
                + (inFlight != null ? " inFlight " + inFlight : ""), requests);
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int clientGetEndToEndInmemory(InFlight inFlight) {
        int sum = waiter.sendInBatches(client, plaintext, responses, CALLS, inFlight.n);
        requests += CALLS;
        return sum;
    }

    /** One call at a time. */
    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int clientDoFastServer() {
        int sum = waiter.sendInBatches(client, fast, responses, CALLS, 1);
        requests += CALLS;
        return sum;
    }
}
