package dev.peregrine.jmh.files;

import dev.peregrine.Server;
import dev.peregrine.ServerConfig;
import dev.peregrine.files.StaticFiles;
import dev.peregrine.StaticOptions;
import dev.peregrine.jmh.server.ServerTimingBenchmark.BenchmarkThreadLoop;
import dev.peregrine.jmh.server.ServerTimingBenchmark.FakeSocket;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.offloop.OffLoopExecutor;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.server.ServerSetup;
import dev.peregrine.route.Router;
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
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A cached static file on a kept-alive connection, in memory as {@code ServerTimingBenchmark} runs the
 * server (connection, parser, router, {@link StaticFiles}, encoder, the batch write; no socket): a 1 KiB
 * file ({@code get}) and its 304 ({@code notModified}, If-None-Match with the file's ETag). With
 * {@code -prof gc}, B/op is what one such request allocates. With {@code cacheValidMs} 0 each request
 * costs the cache's {@code stat} of the path (its validation; a system call here too, and the JDK's
 * attribute objects: about 200 B/op on JDK 17); with 60000 the entry is trusted, as nginx's
 * {@code open_file_cache_valid}, and a request allocates nothing (0 B/op for both scenarios: the cache key
 * is decoded from the request's bytes, the fields are preformatted).
 *
 * <pre>
 *   scripts/jmh StaticFilesGetBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "--enable-native-access=ALL-UNNAMED"})
public class StaticFilesGetBenchmark {
    @Param({"get", "notModified"})
    public String scenario;

    /** {@code StaticOptions.cacheValid}: 0 validates the cached file with a stat per request; 60000 as nginx's default. */
    @Param({"0", "60000"})
    public long cacheValidMs;

    private Path dir;
    private StaticFiles files;
    private OffLoopExecutor blocking;
    private LoopContext ctx;
    private FakeSocket socket;
    private Connection connection;
    private byte[] request;

    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("peregrine-jmh-static");
        byte[] small = new byte[1024];
        for (int i = 0; i < small.length; i++) {
            small[i] = (byte) ('a' + i % 26);
        }
        Files.write(dir.resolve("small.txt"), small);
        files = new StaticFiles(dir, StaticOptions.builder().cacheValid(java.time.Duration.ofMillis(cacheValidMs)).build());
        ServerConfig config = Server.builder().settings();
        blocking = new OffLoopExecutor(1);
        Router router = Router.builder().add("GET", "/static/*", files).build();
        ctx = new LoopContext(new ServerSetup(config, router, ProtocolSwitches.NONE, blocking, null, false, null).listener(0, null));
        ctx.bind(new BenchmarkThreadLoop());
        socket = new FakeSocket();
        connection = ctx.newConnection(socket);
        String get = "GET /static/small.txt HTTP/1.1\r\nHost: localhost\r\nUser-Agent: bench\r\nAccept: */*\r\n";
        request = (get + "\r\n").getBytes(StandardCharsets.US_ASCII);
        long size = Files.size(dir.resolve("small.txt"));
        long modified = Files.getLastModifiedTime(dir.resolve("small.txt")).toMillis();
        String etag = "\"" + Long.toHexString(size) + "-" + Long.toHexString(modified) + "\"";
        if (scenario.equals("notModified")) {
            request = (get + "If-None-Match: " + etag + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        }
        long first = serve(); // opens and caches the file
        if (first <= 0) {
            throw new IllegalStateException("no response");
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        connection.close();
        files.close();
        ctx.free();
        blocking.shutdown();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    /** One request on the open connection; returns the bytes written. */
    @Benchmark
    public long serve() {
        socket.feed(request, 1, false);
        connection.onReadable();
        return socket.written;
    }
}
