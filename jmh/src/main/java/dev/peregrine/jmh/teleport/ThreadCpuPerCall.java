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

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link EndToEndGetBenchmark}'s {@code noDelay}, {@code none} and {@code http11Pipeline} rows as a plain program that
 * reads each thread's CPU time from Linux's {@code /proc/self/task/<tid>/schedstat} (nanoseconds on a
 * CPU, and waiting on a run queue) and its read and write system calls ({@code io}): per call, for the
 * sending thread and the two loops (the server's is started first). On a shared machine wall time per
 * call swings by 2-3x between runs while CPU per call moves far less, so alternating builds and taking
 * the medians of several runs compares the code where JMH's scores cannot. It also prints the
 * percentiles of a round's wall time (one batch of {@code inFlight} calls, all awaited).
 * <pre>
 *   java -cp jmh/target/benchmarks.jar dev.peregrine.jmh.teleport.ThreadCpuPerCall noDelay 1000 400
 *   java -cp jmh/target/benchmarks.jar dev.peregrine.jmh.teleport.ThreadCpuPerCall http11Pipeline 1000 400
 * </pre>
 * Arguments: the row, calls in flight (a divisor of 1000), rounds of 1000 calls measured (half as many
 * run first to warm up; 400 or more, so the JIT has settled). Linux only. {@code -DmaxBatchFrames=N} sets the
 * teleport client's frame cap: with {@code none} at 1,000 in flight and {@code N} = 1000 a round's batch leaves at
 * its last call instead of waiting out the delay (the burst without the idle wait), a diagnostic, not a row.
 */
public final class ThreadCpuPerCall {
    private ThreadCpuPerCall() {
    }

    public static void main(String[] args) throws Exception {
        String row = args[0];
        int inFlight = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        byte[] body = new byte[EndToEndGetBenchmark.BODY_LENGTH];
        Arrays.fill(body, (byte) 'x');
        Server server = Server.builder().host("127.0.0.1").port(0).threads(1)
                .get("/foo/bar", (req, res) -> res.body(body)).teleport(0).start();
        HttpClient http = null;
        AutoCloseable client;
        HttpSender sender;
        ClientRequest request;
        if (row.equals("http11Pipeline")) {
            http = HttpClient.builder().build();
            PipelineClient p = PipelineClient.on(http).maxConns(1).maxPending(EndToEndGetBenchmark.CALLS).build();
            client = p;
            sender = p;
            request = ClientRequest.get("http://127.0.0.1:" + server.port() + "/foo/bar");
        } else if (row.equals("noDelay") || row.equals("none")) {
            TeleportClient.Builder tb = TeleportClient.builder("127.0.0.1", server.teleportPort())
                    .maxInFlight(EndToEndGetBenchmark.CALLS).timeout(Duration.ofSeconds(60));
            if (row.equals("none")) {
                tb.maxBatchDelay(Duration.ofMillis(1)); // the benchmark's "none" row: a 1 ms batch delay, no compression
            }
            Integer frames = Integer.getInteger("maxBatchFrames"); // an experiment: a batch cut by its size, not its delay
            if (frames != null) {
                tb.maxBatchFrames(frames);
            }
            TeleportClient tp = tb.build();
            client = tp;
            sender = tp;
            request = ClientRequest.get("http://svc/foo/bar");
            for (long until = System.nanoTime() + 10_000_000_000L; ; ) { // the connection comes up in the background
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
        } else {
            throw new IllegalArgumentException("row: noDelay, none or http11Pipeline, not " + row);
        }
        ReusableResponse[] responses = new ReusableResponse[EndToEndGetBenchmark.CALLS];
        for (int i = 0; i < responses.length; i++) {
            responses[i] = new ReusableResponse();
        }
        CallbackWaiter waiter = new CallbackWaiter();
        for (int i = 0; i < rounds / 2; i++) {
            waiter.sendInBatches(sender, request, responses, EndToEndGetBenchmark.CALLS, inFlight);
        }
        Map<String, long[]> before = threads();
        long[] roundNanos = new long[rounds * (EndToEndGetBenchmark.CALLS / inFlight)];
        long start = System.nanoTime();
        for (int i = 0; i < roundNanos.length; i++) {
            long t0 = System.nanoTime();
            if (waiter.sendInBatches(sender, request, responses, inFlight, inFlight) != 200 * inFlight) {
                throw new IllegalStateException("not every call answered 200");
            }
            roundNanos[i] = System.nanoTime() - t0;
        }
        long wall = System.nanoTime() - start;
        Map<String, long[]> after = threads();
        double calls = (double) roundNanos.length * inFlight;
        Arrays.sort(roundNanos);
        System.out.printf("%s, %d in flight: %.0f ns/call wall; a round p50 %d us, p90 %d us, p99 %d us%n", row, inFlight,
                wall / calls, roundNanos[roundNanos.length / 2] / 1000, roundNanos[roundNanos.length * 9 / 10] / 1000,
                roundNanos[roundNanos.length * 99 / 100] / 1000);
        for (Map.Entry<String, long[]> e : after.entrySet()) {
            long[] a = e.getValue();
            long[] b = before.getOrDefault(e.getKey(), new long[4]);
            if (a[0] - b[0] < calls * 20) {
                continue; // under 20 ns a call: not part of the exchange
            }
            System.out.printf("  %-24s cpu %5.0f ns/call, run queue %5.0f ns/call, reads %.3f, writes %.3f per call%n",
                    e.getKey(), (a[0] - b[0]) / calls, (a[1] - b[1]) / calls, (a[2] - b[2]) / calls, (a[3] - b[3]) / calls);
        }
        client.close();
        if (http != null) {
            http.close();
        }
        server.close();
    }

    /** Per thread ({@code name/tid}): nanoseconds on a CPU, nanoseconds waiting to run, read and write system calls. */
    private static Map<String, long[]> threads() throws IOException {
        Map<String, long[]> m = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    String[] sched = Files.readString(t.resolve("schedstat")).trim().split(" ");
                    long reads = 0;
                    long writes = 0;
                    for (String line : Files.readAllLines(t.resolve("io"))) {
                        if (line.startsWith("syscr:")) {
                            reads = Long.parseLong(line.substring(6).trim());
                        } else if (line.startsWith("syscw:")) {
                            writes = Long.parseLong(line.substring(6).trim());
                        }
                    }
                    String name = Files.readString(t.resolve("comm")).trim() + "/" + t.getFileName();
                    m.put(name, new long[] {Long.parseLong(sched[0]), Long.parseLong(sched[1]), reads, writes});
                } catch (IOException gone) {
                    // the thread ended while listed
                }
            }
        }
        return m;
    }
}
