package dev.peregrine.examples;

import dev.peregrine.Server;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code load} command line as the README documents it, against the examples app. */
class LoadCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int load(String... args) {
        out.reset();
        err.reset();
        return LoadCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String output() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private static long number(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), regex + " in:\n" + text);
        return Long.parseLong(m.group(1));
    }

    @Test
    void keepAliveAndPipelinedRunsReportRequestsLatencyAndNoErrors() throws Exception {
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).start()) {
            String url = "http://127.0.0.1:" + server.port() + "/plaintext";
            assertEquals(0, load("-c", "4", "-d", "500ms", "--threads", "2", url), output());
            String keepAlive = output();
            long requests = number(keepAlive, "requests: (\\d+) in ");
            assertTrue(requests > 0, keepAlive);
            assertTrue(keepAlive.startsWith("load: 4 connections, 2 threads, pipeline 1, 0.5 s, " + url + "\n"), keepAlive);
            assertTrue(keepAlive.contains("status: 200 x " + requests + "\n"), keepAlive);
            assertTrue(keepAlive.contains("\nnon-2xx: 0\nerrors: 0\n"), keepAlive);
            assertTrue(Pattern.compile("latency: p50 [0-9.]+ ms, p90 [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms\n").matcher(keepAlive).find(), keepAlive);
            assertTrue(Pattern.compile("client CPU: \\d+ ns/request\n").matcher(keepAlive).find(), keepAlive);
            assertEquals(4, server.metrics().accepted, "one connection per -c");

            assertEquals(0, load("-c", "2", "-d", "1", "--pipeline", "16", url), output());
            String pipelined = output();
            assertTrue(pipelined.startsWith("load: 2 connections, 1 threads, pipeline 16, 1.0 s, "), pipelined);
            assertTrue(number(pipelined, "requests: (\\d+) in ") > 0, pipelined);
            assertTrue(pipelined.contains("\nnon-2xx: 0\nerrors: 0\n"), pipelined);
            assertEquals(6, server.metrics().accepted, "two more connections for the pipelined run");
        }
    }

    @Test
    void http2RunsOpenConnsConnectionsOfDepthStreams() throws Exception {
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).http2(true).start()) {
            String url = "http://127.0.0.1:" + server.port() + "/plaintext";
            assertEquals(0, load("-c", "4", "-d", "500ms", "--threads", "2", "--pipeline", "8", "--http2", url), output());
            String h2 = output();
            assertTrue(h2.startsWith("load: 4 connections, 2 threads, streams 8 (HTTP/2), 0.5 s, " + url + "\n"), h2);
            long requests = number(h2, "requests: (\\d+) in ");
            assertTrue(requests > 0, h2);
            assertTrue(h2.contains("status: 200 x " + requests + "\nnon-2xx: 0\nerrors: 0\n"), h2);
            assertEquals(4, server.metrics().accepted, "one HTTP/2 connection per -c");
        }
    }

    @Test
    void nonSuccessAndFailuresExitOneAndAreCountedByStatusAndPhase() throws Exception {
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).start()) {
            assertEquals(1, load("-c", "1", "-d", "300ms", "http://127.0.0.1:" + server.port() + "/nowhere"));
            String notFound = output();
            long requests = number(notFound, "requests: (\\d+) in ");
            assertTrue(notFound.contains("status: 404 x " + requests + "\nnon-2xx: " + requests + "\nerrors: 0\n"), notFound);
        }
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertEquals(1, load("-c", "2", "-d", "300ms", "http://127.0.0.1:" + port + "/"));
        String refused = output();
        long errors = number(refused, "errors: (\\d+) \\(connect (\\d+)\\)");
        assertTrue(errors > 0, refused);
        assertTrue(refused.contains("requests: 0 in "), refused);
        assertTrue(refused.contains("client CPU: n/a\n"), refused);
    }

    @Test
    void aBadCommandLineExitsTwoWithUsage() {
        assertEquals(2, load("-c", "2", "http://127.0.0.1:1/"));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("error: load -c CONNS -d SECONDS"), err.toString(StandardCharsets.UTF_8));
        assertEquals(2, load("-c"));
        assertEquals(LoadCommand.USAGE + "\n", err.toString(StandardCharsets.UTF_8));
        assertEquals(2, load("-c", "0", "-d", "1", "http://127.0.0.1:1/"));
        assertEquals(2, load("-c", "1", "--threads", "2", "-d", "1", "http://127.0.0.1:1/"));
        assertEquals(2, load("-c", "1", "-d", "1", "ftp://x/"));
        assertEquals(2, load("-c", "1", "-d", "soon", "http://127.0.0.1:1/"));
    }

    @Test
    void histogramBucketsKeepPercentilesWithinTheirPrecision() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v);
        }
        assertEquals(100_000, h.total());
        long p50 = h.percentile(50);
        long p99 = h.percentile(99);
        assertTrue(Math.abs(p50 - 50_000) <= 50_000 / 256, "p50 " + p50);
        assertTrue(Math.abs(p99 - 99_000) <= 99_000 / 256, "p99 " + p99);
        assertEquals(100_000, h.percentile(100), 100_000 / 256.0);
        for (long v : new long[] {0, 1, 1023, 1024, 1025, 4096, 123_456_789, 1L << 40, Long.MAX_VALUE}) {
            int i = LatencyHistogram.index(v);
            assertTrue(LatencyHistogram.valueAt(i) >= Math.min(v, LatencyHistogram.valueAt(i)), "bucket of " + v);
        }
        for (long v = 0; v < 1 << 20; v += 7) {
            long top = LatencyHistogram.valueAt(LatencyHistogram.index(v));
            assertTrue(top >= v && top - v <= Math.max(1, v / 256), v + " -> " + top);
        }
    }
}
