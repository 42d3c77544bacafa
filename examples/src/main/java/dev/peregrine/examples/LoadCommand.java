package dev.peregrine.examples;

import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.Http2Mode;
import dev.peregrine.client.HttpClient;
import dev.peregrine.client.HttpSender;
import dev.peregrine.client.PipelineClient;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code load}: a wrk-like load generator on Peregrine's client, the contract the README documents:
 * <pre>
 *   java -jar examples/target/peregrine-examples.jar load -c CONNS -d SECONDS [--pipeline DEPTH] [--threads N] [--http2] URL
 * </pre>
 * With {@code --http2} the connections speak HTTP/2 (h2c by prior knowledge for {@code http}, ALPN for
 * {@code https}) and each carries {@code DEPTH} concurrent streams (h2load's {@code -m}) instead of a
 * pipeline; the first line then says {@code streams DEPTH (HTTP/2)} where it says {@code pipeline DEPTH}.
 * {@code --threads N} (default 1) clients of one loop each share the {@code CONNS} connections; each
 * connection keeps {@code DEPTH} (default 1) GET requests outstanding: with a depth of 1 through an
 * {@link HttpClient} (keep-alive, one request per connection at a time), above 1 through a
 * {@link PipelineClient}. Every answer sends the next request from the loop thread that got it, until
 * {@code SECONDS} (a number of seconds, or {@code 500ms}, {@code 2s}) have passed; the requests still
 * out then are waited for. It prints:
 * <pre>
 *   load: 16 connections, 2 threads, pipeline 1, 2.0 s, http://127.0.0.1:8080/plaintext
 *   requests: 123456 in 2.00 s, 61728 requests/s
 *   latency: p50 0.210 ms, p90 0.402 ms, p99 0.800 ms, max 3.100 ms
 *   status: 200 x 123456
 *   non-2xx: 0
 *   errors: 0
 *   client CPU: 1234 ns/request
 * </pre>
 * {@code errors} counts requests that got no response, by {@link ClientException.Phase} (e.g.
 * {@code errors: 3 (connect 1, read 2)}); client CPU is the process's CPU time over the run divided by
 * the requests answered. Exits 0 when every request got a 2xx response, 1 when any failed or was not
 * 2xx, 2 for a bad command line.
 */
public final class LoadCommand {
    /** Where a stream whose request failed goes on from, 10 ms later. */
    private static final Executor RETRY_LATER = CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS);
    static final String USAGE = "usage: load -c CONNS -d SECONDS [--pipeline DEPTH] [--threads N] [--http2] URL";

    private final String url;
    private final int conns;
    private final int threads;
    private final int depth;
    private final boolean http2;
    private final Duration duration;
    private final LatencyHistogram latency = new LatencyHistogram();
    private final AtomicLongArray statuses = new AtomicLongArray(600);
    private final AtomicLongArray errors = new AtomicLongArray(ClientException.Phase.values().length + 1);
    private final AtomicLong answered = new AtomicLong();
    private volatile long stopAtNanos;

    private LoadCommand(String url, int conns, int threads, int depth, boolean http2, Duration duration) {
        this.url = url;
        this.conns = conns;
        this.threads = threads;
        this.depth = depth;
        this.http2 = http2;
        this.duration = duration;
    }

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        int conns = -1;
        int threads = 1;
        int depth = 1;
        boolean http2 = false;
        Duration duration = null;
        String url = null;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "-c":
                        conns = positive(args[++i], "-c");
                        break;
                    case "-d":
                        duration = Fetch.duration(args[++i]);
                        if (duration.isZero() || duration.isNegative()) {
                            throw new IllegalArgumentException("-d must be positive");
                        }
                        break;
                    case "--pipeline":
                        depth = positive(args[++i], "--pipeline");
                        break;
                    case "--threads":
                        threads = positive(args[++i], "--threads");
                        break;
                    case "--http2":
                        http2 = true;
                        break;
                    default:
                        if (a.startsWith("-") || url != null) {
                            throw new IllegalArgumentException("unknown argument: " + a);
                        }
                        url = a;
                }
            }
            if (conns < 0 || duration == null || url == null) {
                throw new IllegalArgumentException(USAGE.substring("usage: ".length()) + " (-c, -d and URL are required)");
            }
            if (conns < threads) {
                throw new IllegalArgumentException("-c " + conns + " is fewer connections than --threads " + threads);
            }
            ClientRequest.get(url); // checks the URL
        } catch (ArrayIndexOutOfBoundsException e) {
            err.println(USAGE);
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            return 2;
        }
        return new LoadCommand(url, conns, threads, depth, http2, duration).run(out);
    }

    private static int positive(String s, String flag) {
        try {
            int n = Integer.parseInt(s);
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException(flag + " wants a positive number, got: " + s);
    }

    private int run(PrintStream out) {
        List<HttpClient> clients = new ArrayList<>();
        List<HttpSender> senders = new ArrayList<>();
        int streams = 0;
        for (int t = 0; t < threads; t++) {
            int share = conns / threads + (t < conns % threads ? 1 : 0);
            HttpClient http = HttpClient.builder().threads(1).maxConnsPerHost(share)
                    .connectTimeout(Duration.ofSeconds(5)).readTimeout(Duration.ofSeconds(10))
                    .totalTimeout(Duration.ofSeconds(30))
                    .http2(http2 ? Http2Mode.PRIOR_KNOWLEDGE : Http2Mode.OFF).http2Connections(share).build();
            clients.add(http);
            // HTTP/2: the client's own connections carry DEPTH streams each, no pipelining client needed.
            senders.add(depth == 1 || http2 ? http : PipelineClient.on(http).maxConns(share).maxPending(depth).build());
            streams += share * depth;
        }
        ClientRequest request = ClientRequest.get(url);
        CountDownLatch finished = new CountDownLatch(streams);
        List<Stream> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int share = conns / threads + (t < conns % threads ? 1 : 0);
            for (int s = 0; s < share * depth; s++) {
                all.add(new Stream(senders.get(t), request, finished));
            }
        }
        long cpuBefore = processCpuNanos();
        long start = System.nanoTime();
        stopAtNanos = start + duration.toNanos();
        for (Stream s : all) {
            s.send();
        }
        try {
            finished.await(duration.toMillis() + 60_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long elapsed = System.nanoTime() - start;
        long cpu = processCpuNanos() - cpuBefore;
        for (HttpClient c : clients) {
            c.close();
        }
        return report(out, elapsed, cpu);
    }

    /**
     * One request outstanding at a time, on the client's reuse path: the same {@link ReusableResponse}
     * and this callback for every request, so the generator allocates nothing per request and its CPU
     * per request is the client's, not the collector's. Its answer sends the next request from the loop
     * thread that got it, until the time is up. Thread: the loop's once started.
     */
    private final class Stream implements ResponseCallback {
        private final HttpSender sender;
        private final ClientRequest request;
        private final CountDownLatch finished;
        private final ReusableResponse response = new ReusableResponse();
        private final Runnable sendTask = this::send;
        private long sentAt;

        Stream(HttpSender sender, ClientRequest request, CountDownLatch finished) {
            this.sender = sender;
            this.request = request;
            this.finished = finished;
        }

        void send() {
            sentAt = System.nanoTime();
            sender.send(request, response, this);
        }

        @Override
        public void onResponse(ReusableResponse r, ClientException failure) {
            long now = System.nanoTime();
            count(r.status(), failure, now - sentAt);
            if (now - stopAtNanos >= 0) {
                finished.countDown();
            } else if (failure == null) {
                send();
            } else {
                // A failure may come at once, inside send: going on from here would recurse, and a
                // peer refusing connections would be hammered. The stream resumes 10 ms later instead.
                RETRY_LATER.execute(sendTask);
            }
        }
    }

    private void count(int status, ClientException failure, long nanos) {
        if (failure == null) {
            answered.incrementAndGet();
            latency.record(nanos / 1000);
            statuses.incrementAndGet(Math.min(status, statuses.length() - 1));
            return;
        }
        errors.incrementAndGet(failure.phase().ordinal());
    }

    private int report(PrintStream out, long elapsedNanos, long cpuNanos) {
        double seconds = elapsedNanos / 1e9;
        long n = answered.get();
        out.printf(Locale.ROOT, "load: %d connections, %d threads, %s %d%s, %.1f s, %s%n",
                conns, threads, http2 ? "streams" : "pipeline", depth, http2 ? " (HTTP/2)" : "",
                duration.toMillis() / 1000.0, url);
        out.printf(Locale.ROOT, "requests: %d in %.2f s, %.0f requests/s%n", n, seconds, n / seconds);
        out.printf(Locale.ROOT, "latency: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms%n",
                latency.percentile(50) / 1000.0, latency.percentile(90) / 1000.0, latency.percentile(99) / 1000.0,
                latency.percentile(100) / 1000.0);
        StringBuilder status = new StringBuilder();
        long non2xx = 0;
        for (int s = 0; s < statuses.length(); s++) {
            long k = statuses.get(s);
            if (k > 0) {
                status.append(status.length() == 0 ? "" : ", ").append(s).append(" x ").append(k);
                if (s < 200 || s > 299) {
                    non2xx += k;
                }
            }
        }
        out.println("status: " + (status.length() == 0 ? "none" : status));
        out.println("non-2xx: " + non2xx);
        long failed = 0;
        StringBuilder byPhase = new StringBuilder();
        ClientException.Phase[] phases = ClientException.Phase.values();
        for (int i = 0; i < errors.length(); i++) {
            long k = errors.get(i);
            if (k > 0) {
                failed += k;
                String name = i < phases.length ? phases[i].name().toLowerCase(Locale.ROOT) : "other";
                byPhase.append(byPhase.length() == 0 ? " (" : ", ").append(name).append(' ').append(k);
            }
        }
        out.println("errors: " + failed + (byPhase.length() == 0 ? "" : byPhase + ")"));
        out.println("client CPU: " + (n == 0 || cpuNanos < 0 ? "n/a" : cpuNanos / n + " ns/request"));
        out.flush();
        return failed == 0 && non2xx == 0 && n > 0 ? 0 : 1;
    }

    /** The process's CPU time, or -1 where the JVM does not tell. */
    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }
}
