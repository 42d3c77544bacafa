package dev.peregrine.jmh.teleport;

import dev.peregrine.Server;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.HttpClient;
import dev.peregrine.client.HttpSender;
import dev.peregrine.client.PipelineClient;
import dev.peregrine.client.ReusableResponse;
import dev.peregrine.jmh.client.CallbackWaiter;
import dev.peregrine.teleport.TeleportClient;
import dev.peregrine.teleport.TeleportCompression;
import dev.peregrine.tls.TlsConfig;
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

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * httpteleport's end-to-end table ({@code EndToEndGet{NoDelay,Delay1ms..16ms,Compress*,TLS,Pipeline}}),
 * for teleport beside Peregrine's HTTP/1.1 keep-alive and pipelining clients, in the same run and
 * against the same server (one loop; a GET answered with {@value #BODY_LENGTH} constant bytes).
 * {@value #CALLS} calls per invocation, in batches of {@code inFlight} sent together and all awaited,
 * so the score is the wall time per request. Rows ({@code row}):
 * <pre>
 *   noDelay            teleport, no batch delay, no compression               (httpteleport NoDelay{n})
 *   delay1ms..16ms     teleport, client maxBatchDelay n ms, no compression   (Delay{n}ms)
 *   none / deflate / lz4  teleport, 1 ms delay, that compression               (Compress{None,Flate,...})
 *   tls                teleport over TLS, 1 ms delay, no compression          (TLSCompressNone)
 *   pipeline           teleport, no delay, one frame per write (maxBatchFrames 1): (Pipeline{n})
 *                      httpteleport's server then answers a connection's requests one at a time, in
 *                      order, as Peregrine's does for inline handlers always; this row adds HTTP/1.1
 *                      pipelining's write pattern on the client
 *   http11KeepAlive    HttpClient, inFlight connections                        (the keep-alive peer)
 *   http11Pipeline     PipelineClient, one connection, inFlight pipelined      (the pipelining peer)
 * </pre>
 * httpteleport runs the delay and compression rows at 1000 in flight only; here every row runs at each
 * {@code inFlight}. The server answers with no batch delay of its own (end of each loop turn), the
 * nearest to httpteleport's 100 µs. Allocation per request: {@code -prof gc} (every row's client,
 * teleport's included, takes its own allocation-free reuse path: 0 B per call once warm).
 * <pre>
 *   scripts/jmh EndToEndGetBenchmark -prof gc
 *   scripts/jmh EndToEndGetBenchmark -p row=noDelay,http11KeepAlive,http11Pipeline -p inFlight=1000
 * </pre>
 * Figures need a quiet machine (docs/teleport.md, Benchmarks).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m", "--enable-native-access=ALL-UNNAMED"})
public class EndToEndGetBenchmark {
    static final int CALLS = 1000;
    static final int BODY_LENGTH = 240;
    private static final byte[] BODY = body();

    @Param({"noDelay", "delay1ms", "delay2ms", "delay4ms", "delay8ms", "delay16ms", "none", "deflate", "lz4", "tls",
            "pipeline", "http11KeepAlive", "http11Pipeline"})
    public String row;

    @Param({"1", "10", "100", "1000"})
    public int inFlight;

    private Server server;
    private HttpClient http;
    private AutoCloseable closeClient;
    private HttpSender sender;
    private ClientRequest request;
    private final ReusableResponse[] responses = new ReusableResponse[CALLS];
    private final CallbackWaiter waiter = new CallbackWaiter();

    private static byte[] body() {
        StringBuilder b = new StringBuilder(BODY_LENGTH);
        for (int i = 0; b.length() < BODY_LENGTH; i++) {
            b.append("teleport body word ").append(i).append(' ');
        }
        return b.substring(0, BODY_LENGTH).getBytes(StandardCharsets.US_ASCII);
    }

    @Setup(Level.Trial)
    public void start() throws Exception {
        TlsConfig tls = row.equals("tls") ? TlsConfig.selfSigned() : null;
        Server.Builder b = Server.builder().host("127.0.0.1").port(0).threads(1).get("/foo/bar", (req, res) -> res.body(BODY));
        server = (tls != null ? b.teleport(0, tls) : b.teleport(0)).start();
        for (int i = 0; i < CALLS; i++) {
            responses[i] = new ReusableResponse();
        }
        switch (row) {
            case "http11KeepAlive":
                http = HttpClient.builder().maxConnsPerHost(inFlight).build();
                sender = http;
                request = ClientRequest.get("http://127.0.0.1:" + server.port() + "/foo/bar");
                return;
            case "http11Pipeline":
                http = HttpClient.builder().build();
                PipelineClient p = PipelineClient.on(http).maxConns(1).maxPending(CALLS).build();
                closeClient = p;
                sender = p;
                request = ClientRequest.get("http://127.0.0.1:" + server.port() + "/foo/bar");
                return;
            default:
                TeleportClient.Builder tb = TeleportClient.builder("127.0.0.1", server.teleportPort())
                        .maxInFlight(CALLS).timeout(Duration.ofSeconds(60));
                if (row.startsWith("delay")) {
                    tb.maxBatchDelay(Duration.ofMillis(Integer.parseInt(row.substring(5, row.length() - 2))));
                } else if (!row.equals("noDelay") && !row.equals("pipeline")) {
                    tb.maxBatchDelay(Duration.ofMillis(1));
                }
                if (row.equals("pipeline")) {
                    tb.maxBatchFrames(1);
                }
                if (row.equals("deflate")) {
                    tb.compression(TeleportCompression.DEFLATE);
                } else if (row.equals("lz4")) {
                    tb.compression(TeleportCompression.LZ4);
                }
                if (tls != null) {
                    tb.tls(trusting(tls.certificate()));
                }
                TeleportClient tp = tb.build();
                closeClient = tp;
                sender = tp;
                request = ClientRequest.get("http://svc/foo/bar");
                // The connection comes up in the background: wait for the first answer.
                for (long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); ; ) {
                    try {
                        tp.execute(request);
                        break;
                    } catch (ClientException e) {
                        if (System.nanoTime() > until) {
                            throw e;
                        }
                        Thread.sleep(10);
                    }
                }
        }
    }

    private static SSLContext trusting(java.security.cert.X509Certificate cert) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setCertificateEntry("c", cert);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        if (closeClient != null) {
            closeClient.close();
        }
        if (http != null) {
            http.close();
        }
        server.close();
    }

    @Benchmark
    @OperationsPerInvocation(CALLS)
    public int endToEndGet() {
        int sum = waiter.sendInBatches(sender, request, responses, CALLS, inFlight);
        if (sum != 200 * CALLS) {
            throw new IllegalStateException("not every call answered 200: status sum " + sum);
        }
        return sum;
    }
}
