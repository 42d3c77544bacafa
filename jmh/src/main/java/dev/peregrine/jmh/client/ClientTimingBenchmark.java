package dev.peregrine.jmh.client;

import dev.peregrine.Server;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.HttpClient;
import dev.peregrine.client.ReusableResponse;
import dev.peregrine.examples.PlaintextApp;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.async.HttpAsyncClients;
import org.apache.hc.client5.http.impl.nio.PoolingAsyncClientConnectionManagerBuilder;
import org.apache.hc.core5.reactor.IOReactorConfig;
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
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * fasthttp's client table ({@code client_timing_test.go}: {@code ClientGetEndToEnd{1,10,100}TCP}), with
 * the peers in the same run against the same server: {@code GET /plaintext} of the plaintext app (one
 * server loop) over loopback TCP, {@code inFlight} calls in flight (sent together, all awaited, then the
 * next batch), {@value #CALLS} calls per invocation, so the score is the wall time per request.
 * <ul>
 *   <li>{@code peregrine}: {@link HttpClient} on the reuse path (one loop);</li>
 *   <li>{@code jdk}: {@code java.net.http.HttpClient}, HTTP/1.1, its default executor;</li>
 *   <li>{@code reactorNetty}: reactor-netty-http 1.3.7 on Netty 4.2.18, one event loop, a pool of
 *       {@code inFlight} connections;</li>
 *   <li>{@code apacheAsync}: Apache HttpClient 5.6 async, one I/O reactor thread, {@code inFlight} connections.</li>
 * </ul>
 * Each client's CPU per request is printed after every measurement iteration ({@link ClientCpuMeter}:
 * process CPU minus the server loop's), the figure the targets are about.
 * <pre>
 *   scripts/jmh ClientTimingBenchmark -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "--enable-native-access=ALL-UNNAMED"})
public class ClientTimingBenchmark {
    static final int CALLS = 100;

    @Param({"1", "10", "100"})
    public int inFlight;

    private final ClientCpuMeter cpu = new ClientCpuMeter();
    private long requests;
    private Server server;
    private String url;
    private HttpClient peregrine;
    private ClientRequest request;
    private final ReusableResponse[] responses = new ReusableResponse[CALLS];
    private final CallbackWaiter waiter = new CallbackWaiter();
    private java.net.http.HttpClient jdk;
    private HttpRequest jdkRequest;
    private ConnectionProvider reactorPool;
    private LoopResources reactorLoops;
    private reactor.netty.http.client.HttpClient reactorClient;
    private CloseableHttpAsyncClient apache;
    @SuppressWarnings("unchecked")
    private final CompletableFuture<Integer>[] futures = new CompletableFuture[CALLS];
    @SuppressWarnings("unchecked")
    private final Future<SimpleHttpResponse>[] apacheFutures = new Future[CALLS];

    @Setup(Level.Trial)
    public void start() {
        server = cpu.startServer(() -> PlaintextApp.routes(Server.builder().host("127.0.0.1").port(0).threads(1)).start());
        url = "http://127.0.0.1:" + server.port() + "/plaintext";
        peregrine = HttpClient.builder().maxConnsPerHost(inFlight).build();
        request = ClientRequest.get(url);
        for (int i = 0; i < CALLS; i++) {
            responses[i] = new ReusableResponse();
        }
        jdk = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build();
        jdkRequest = HttpRequest.newBuilder(URI.create(url)).build();
        reactorPool = ConnectionProvider.builder("bench").maxConnections(inFlight).pendingAcquireMaxCount(-1).build();
        reactorLoops = LoopResources.create("bench-reactor", 1, true);
        reactorClient = reactor.netty.http.client.HttpClient.create(reactorPool).runOn(reactorLoops);
        apache = HttpAsyncClients.custom()
                .setConnectionManager(PoolingAsyncClientConnectionManagerBuilder.create()
                        .setMaxConnPerRoute(inFlight).setMaxConnTotal(inFlight).build())
                .setIOReactorConfig(IOReactorConfig.custom().setIoThreadCount(1).build())
                .build();
        apache.start();
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        apache.close();
        reactorPool.dispose();
        reactorLoops.dispose();
        peregrine.close();
        server.close();
    }

    @Setup(Level.Iteration)
    public void beginIteration() {
        cpu.begin(requests);
    }

    @TearDown(Level.Iteration)
    public void endIteration(BenchmarkParams params) {
        cpu.end(params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1) + " inFlight " + inFlight, requests);
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int peregrine() {
        int sum = waiter.sendInBatches(peregrine, request, responses, CALLS, inFlight);
        requests += CALLS;
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int jdk() {
        int sum = 0;
        for (int done = 0; done < CALLS; done += inFlight) {
            for (int i = 0; i < inFlight; i++) {
                futures[i] = jdk.sendAsync(jdkRequest, HttpResponse.BodyHandlers.ofByteArray()).thenApply(HttpResponse::statusCode);
            }
            sum += joinAll();
        }
        requests += CALLS;
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int reactorNetty() {
        int sum = 0;
        for (int done = 0; done < CALLS; done += inFlight) {
            for (int i = 0; i < inFlight; i++) {
                futures[i] = reactorClient.get().uri(url)
                        .responseSingle((res, body) -> body.asByteArray().map(b -> res.status().code())).toFuture();
            }
            sum += joinAll();
        }
        requests += CALLS;
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int apacheAsync() throws Exception {
        int sum = 0;
        for (int done = 0; done < CALLS; done += inFlight) {
            for (int i = 0; i < inFlight; i++) {
                apacheFutures[i] = apache.execute(SimpleRequestBuilder.get(url).build(), null);
            }
            for (int i = 0; i < inFlight; i++) {
                sum += apacheFutures[i].get().getCode();
            }
        }
        requests += CALLS;
        return sum;
    }

    private int joinAll() {
        int sum = 0;
        for (int i = 0; i < inFlight; i++) {
            sum += futures[i].join();
        }
        return sum;
    }
}
