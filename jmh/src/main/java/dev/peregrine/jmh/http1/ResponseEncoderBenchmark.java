package dev.peregrine.jmh.http1;

import dev.peregrine.buffer.OutputSink;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.ResponseEncoder;
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
import java.util.concurrent.TimeUnit;

/**
 * The response encoder alone, as the loop uses it after a handler returns: the view reset, filled
 * (status, content type, the handler's fields, a body) and encoded into a direct buffer that is
 * emptied each time (the connection's batch after a write). {@code plaintext} is TechEmpower's
 * "Hello, World!" answer; {@code headers} adds three fields and a 1 KB body (above the ~900 bytes
 * the encoder assembles on the heap, so the body follows in a second copy). Run with {@code -prof gc}:
 * 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class ResponseEncoderBenchmark {
    private static final byte[] HELLO = "Hello, World!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] KILOBYTE = new byte[1024];

    @Param({"plaintext", "headers"})
    public String response;

    private final ResponseEncoder encoder = new ResponseEncoder();
    private final ResponseView res = new ResponseView();
    private final Sink sink = new Sink();
    private boolean headers;

    /** A connection's batch, emptied after each response as a write would. */
    static final class Sink implements OutputSink {
        final ByteBuffer out = ByteBuffer.allocateDirect(64 * 1024).order(ByteOrder.LITTLE_ENDIAN);

        @Override
        public ByteBuffer out() {
            return out;
        }

        @Override
        public void drain() {
            out.clear();
        }
    }

    @Setup
    public void setup() {
        headers = response.equals("headers");
        encoder.tick(System.currentTimeMillis());
    }

    @Benchmark
    public int encode() {
        ResponseView r = res;
        r.reset();
        if (headers) {
            r.header("Cache-Control", "no-store").header("X-Frame-Options", "DENY").header("Vary", "Origin");
            r.contentType("application/octet-stream").body(KILOBYTE);
        } else {
            r.contentType("text/plain").body(HELLO);
        }
        encoder.encode(r, false, true, false, sink);
        int n = sink.out.position();
        sink.out.clear();
        return n;
    }
}
