package dev.peregrine.jmh.client;

import dev.peregrine.Server;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /plaintext} of the plaintext app over loopback, the time per request with the client's
 * own work included, in the same run: Peregrine's pooled {@link HttpClient} with {@value #IN_FLIGHT}
 * calls in flight (one per connection), the same through a {@link PipelineClient} ({@value #PIPELINED}
 * in flight on one connection), both again on the reuse path ({@code send(request, reusableResponse,
 * callback)}: the benchmark thread parks until the callbacks have all run, and nothing is allocated per
 * call once warm), and the JDK's {@code java.net.http.HttpClient} (HTTP/1.1, {@value #IN_FLIGHT} in
 * flight). One server loop; every client on one loop or its default executor.
 * <pre>
 *   scripts/jmh ClientGetBenchmark -prof gc      # ns/op and B/op (the whole JVM: client and server)
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
public class ClientGetBenchmark {
    static final int IN_FLIGHT = 10;
    static final int PIPELINED = 100;

    private Server server;
    private HttpClient peregrine;
    private PipelineClient pipeline;
    private java.net.http.HttpClient jdk;
    private ClientRequest request;
    private HttpRequest jdkRequest;
    @SuppressWarnings("unchecked")
    private final CompletableFuture<ClientResponse>[] inFlight = new CompletableFuture[PIPELINED];
    private final ReusableResponse[] responses = new ReusableResponse[PIPELINED];
    private final CallbackWaiter waiter = new CallbackWaiter();
    @SuppressWarnings("unchecked")
    private final CompletableFuture<HttpResponse<byte[]>>[] jdkInFlight = new CompletableFuture[IN_FLIGHT];

    @Setup(Level.Trial)
    public void start() {
        server = PlaintextApp.routes(Server.builder().host("127.0.0.1").port(0).threads(1)).start();
        String url = "http://127.0.0.1:" + server.port() + "/plaintext";
        peregrine = HttpClient.builder().maxConnsPerHost(IN_FLIGHT).build();
        pipeline = PipelineClient.on(peregrine).maxConns(1).maxPending(PIPELINED).build();
        request = ClientRequest.get(url);
        jdk = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build();
        jdkRequest = HttpRequest.newBuilder(URI.create(url)).build();
        for (int i = 0; i < PIPELINED; i++) {
            responses[i] = new ReusableResponse();
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        pipeline.close();
        peregrine.close();
        server.close();
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public int peregrinePooled10() {
        for (int i = 0; i < IN_FLIGHT; i++) {
            inFlight[i] = peregrine.send(request);
        }
        int n = 0;
        for (int i = 0; i < IN_FLIGHT; i++) {
            n += inFlight[i].join().status();
        }
        return n;
    }

    @Benchmark
    @OperationsPerInvocation(PIPELINED)
    public int peregrinePipelined100() {
        for (int i = 0; i < PIPELINED; i++) {
            inFlight[i] = pipeline.send(request);
        }
        int n = 0;
        for (int i = 0; i < PIPELINED; i++) {
            n += inFlight[i].join().status();
        }
        return n;
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public int jdkHttp11Pooled10() {
        for (int i = 0; i < IN_FLIGHT; i++) {
            jdkInFlight[i] = jdk.sendAsync(jdkRequest, HttpResponse.BodyHandlers.ofByteArray());
        }
        int n = 0;
        for (int i = 0; i < IN_FLIGHT; i++) {
            n += jdkInFlight[i].join().statusCode();
        }
        return n;
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public int peregrinePooledReuse10() {
        return waiter.sendInBatches(peregrine, request, responses, IN_FLIGHT, IN_FLIGHT);
    }

    @Benchmark
    @OperationsPerInvocation(PIPELINED)
    public int peregrinePipelinedReuse100() {
        return waiter.sendInBatches(pipeline, request, responses, PIPELINED, PIPELINED);
    }
}
