package dev.peregrine.jmh.client;

import dev.peregrine.Server;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.HttpClient;
import dev.peregrine.client.PipelineClient;
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

import java.util.concurrent.TimeUnit;

/**
 * fasthttp's {@code PipelineClient{1,10,100,1000}} rows: {@code GET /plaintext} of the plaintext app
 * (one server loop) through a {@link PipelineClient} on one connection, {@code inFlight} calls pipelined
 * (sent together on the reuse path, all awaited, then the next batch), {@value #CALLS} calls per
 * invocation: the score is the wall time per request, beside {@link ClientTimingBenchmark}'s keep-alive
 * rows. The client's CPU per request is printed after every measurement iteration ({@link ClientCpuMeter}).
 * <pre>
 *   scripts/jmh PipelineClientTimingBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "--enable-native-access=ALL-UNNAMED"})
public class PipelineClientTimingBenchmark {
    static final int CALLS = 1000;

    @Param({"1", "10", "100", "1000"})
    public int inFlight;

    private final ClientCpuMeter cpu = new ClientCpuMeter();
    private long requests;
    private Server server;
    private HttpClient http;
    private PipelineClient pipeline;
    private ClientRequest request;
    private final ReusableResponse[] responses = new ReusableResponse[CALLS];
    private final CallbackWaiter waiter = new CallbackWaiter();

    @Setup(Level.Trial)
    public void start() {
        server = cpu.startServer(() -> PlaintextApp.routes(Server.builder().host("127.0.0.1").port(0).threads(1)).start());
        http = HttpClient.builder().build();
        pipeline = PipelineClient.on(http).maxConns(1).maxPending(CALLS).build();
        request = ClientRequest.get("http://127.0.0.1:" + server.port() + "/plaintext");
        for (int i = 0; i < CALLS; i++) {
            responses[i] = new ReusableResponse();
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        pipeline.close();
        http.close();
        server.close();
    }

    @Setup(Level.Iteration)
    public void beginIteration() {
        cpu.begin(requests);
    }

    @TearDown(Level.Iteration)
    public void endIteration() {
        cpu.end("pipelineClient inFlight " + inFlight, requests);
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int pipelineClient() {
        int sum = waiter.sendInBatches(pipeline, request, responses, CALLS, inFlight);
        requests += CALLS;
        return sum;
    }
}
