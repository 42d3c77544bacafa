package dev.peregrine.jmh.http1;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.http1.HeadParser;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The head parser alone on a direct buffer, as the loop uses it. {@code techempower} is the request
 * wrk sends in the TechEmpower plaintext test; {@code browser} a 693-byte request as a desktop
 * browser sends it. Run with {@code -prof gc} to see B/op. {@code floor} is what any parser pays
 * before it looks at a byte: a bare SWAR scan of the same bytes for the head's end
 * ({@code HeadParser.findHeadEnd}, eight bytes a step); report {@code parse} as a ratio to it.
 *
 * <p>On a shared machine, {@link #main} gives that ratio without JMH: {@code parse} and {@code floor}
 * run back to back in short rounds on one thread, each timed in the thread's CPU time (time the thread
 * was not on a core is not counted), and the median of the rounds' ratios is printed:
 * {@code taskset -c 1 java -cp jmh/target/benchmarks.jar dev.peregrine.jmh.http1.HeadParserBenchmark [rounds]}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class HeadParserBenchmark {
    /** What the TechEmpower toolset's wrk sends for the plaintext test (its -H flags), 170 bytes. */
    public static final String TECHEMPOWER = "GET /plaintext HTTP/1.1\r\n"
            + "Host: tfb-server:8080\r\n"
            + "Accept: text/plain,text/html;q=0.9,application/xhtml+xml;q=0.9,application/xml;q=0.8,*/*;q=0.7\r\n"
            + "Connection: keep-alive\r\n"
            + "\r\n";

    public static final String BROWSER = "GET /articles/2026/11/fast-http-servers-on-the-jvm?utm_source=newsletter&utm_medium=email HTTP/1.1\r\n"
            + "Host: www.example.com\r\n"
            + "Connection: keep-alive\r\n"
            + "sec-ch-ua-platform: \"Linux\"\r\n"
            + "Upgrade-Insecure-Requests: 1\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36\r\n"
            + "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8\r\n"
            + "Sec-Fetch-Site: same-origin\r\n"
            + "Sec-Fetch-Mode: navigate\r\n"
            + "Sec-Fetch-Dest: document\r\n"
            + "Referer: https://www.example.com/\r\n"
            + "Accept-Encoding: gzip, deflate, br, zstd\r\n"
            + "Accept-Language: en-GB,en;q=0.9\r\n"
            + "Cookie: session=3f1c2a9b8e7d6c5b4a39281706f5e4d3; theme=dark; consent=1\r\n"
            + "\r\n";

    @Param({"techempower", "browser"})
    public String request;

    private ByteBuffer buf;
    private int length;
    private final HeadParser parser = new HeadParser(8192, 16384, 100);
    private final RequestView view = new RequestView(100);

    @Setup
    public void setup() {
        byte[] bytes = (request.equals("browser") ? BROWSER : TECHEMPOWER).getBytes(StandardCharsets.US_ASCII);
        length = bytes.length;
        buf = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
        buf.put(0, bytes);
        if (parser.parse(buf, 0, length, view) != length || HeadParser.findHeadEnd(buf, 0, 0, length) != length) {
            throw new IllegalStateException("benchmark request does not parse");
        }
    }

    @Benchmark
    public int parse() {
        return parser.parse(buf, 0, length, view);
    }

    @Benchmark
    public int floor() {
        return HeadParser.findHeadEnd(buf, 0, 0, length);
    }

    /** Prints, for each request, the median over rounds of parse's CPU time over floor's (first third dropped as warm-up). */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        for (String request : new String[] {"techempower", "browser"}) {
            HeadParserBenchmark b = new HeadParserBenchmark();
            b.request = request;
            b.setup();
            int n = request.equals("browser") ? 5_000 : 20_000;
            double[] ratios = new double[rounds];
            long[] parseNs = new long[rounds];
            long[] floorNs = new long[rounds];
            int sink = 0;
            for (int r = 0; r < rounds; r++) {
                long t0 = cpu.getCurrentThreadCpuTime();
                for (int i = 0; i < n; i++) {
                    sink += b.parse();
                }
                long t1 = cpu.getCurrentThreadCpuTime();
                for (int i = 0; i < n; i++) {
                    sink += b.floor();
                }
                long t2 = cpu.getCurrentThreadCpuTime();
                parseNs[r] = t1 - t0;
                floorNs[r] = t2 - t1;
                ratios[r] = (double) (t1 - t0) / (t2 - t1);
            }
            int from = rounds / 3;
            double[] kept = java.util.Arrays.copyOfRange(ratios, from, rounds);
            long[] p = java.util.Arrays.copyOfRange(parseNs, from, rounds);
            long[] f = java.util.Arrays.copyOfRange(floorNs, from, rounds);
            java.util.Arrays.sort(kept);
            java.util.Arrays.sort(p);
            java.util.Arrays.sort(f);
            System.out.printf("%-11s parse/floor median %.2f (p25 %.2f, p75 %.2f); median CPU ns/op parse %.0f, floor %.0f%s%n",
                    request, kept[kept.length / 2], kept[kept.length / 4], kept[kept.length * 3 / 4],
                    (double) p[p.length / 2] / n, (double) f[f.length / 2] / n, sink == 42 ? " " : "");
        }
    }
}
