package dev.peregrine.jmh.http1;

import dev.peregrine.http1.ResponseReader;
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
 * The client's response reader alone on a direct little-endian buffer, as a client connection uses it.
 * (The figures before its one-pass rewrite were measured in the same run against the old class, commit
 * 0f7fa82's {@code ResponseReader}; README lists them.) Per op:
 * <ul>
 *   <li>{@code single}: one typical 200 response (six fields, a 13-byte body), whole;</li>
 *   <li>{@code pipelined16}: a batch of 16 such responses back to back, read one after another;</li>
 *   <li>{@code split}: one response whose head arrives in two reads (cut after its fourth field), read
 *       again from its first byte the second time, as a connection does.</li>
 * </ul>
 * Run with {@code -prof gc} to see B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class ResponseReaderBenchmark {
    /** What the plaintext app answers, with the fields a typical server adds (236 bytes). */
    public static final String RESPONSE = "HTTP/1.1 200 OK\r\n"
            + "Server: Peregrine\r\n"
            + "Date: Mon, 23 Nov 2026 17:31:43 GMT\r\n"
            + "Content-Type: text/plain; charset=utf-8\r\n"
            + "Cache-Control: no-store\r\n"
            + "X-Request-Id: 3f1c2a9b8e7d6c5b\r\n"
            + "Content-Length: 13\r\n"
            + "\r\n"
            + "Hello, World!";

    @Param({"single", "pipelined16", "split"})
    public String shape;

    private final ResponseReader after = new ResponseReader(16 * 1024, 1 << 20);
    private ByteBuffer buf;
    private int length;
    private int responses;
    private int cut;

    @Setup
    public void setup() {
        byte[] one = RESPONSE.getBytes(StandardCharsets.US_ASCII);
        responses = shape.equals("pipelined16") ? 16 : 1;
        buf = ByteBuffer.allocateDirect(one.length * responses).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < responses; i++) {
            buf.put(i * one.length, one);
        }
        length = one.length * responses;
        cut = shape.equals("split") ? RESPONSE.indexOf("X-Request-Id") : 0;
        if (cut > 0 && readOne(0, cut) != ResponseReader.NEED_MORE) {
            throw new IllegalStateException("a head cut short read whole");
        }
        if (read() != length) {
            throw new IllegalStateException("benchmark responses do not parse");
        }
    }

    @Benchmark
    public int read() {
        int pos = 0;
        for (int i = 0; i < responses; i++) {
            int r = readOne(pos, cut > 0 ? pos + cut : length); // split: NEED_MORE, the connection keeps the bytes
            if (cut > 0) {
                r = after.read(buf, pos, length);
            }
            pos = r;
        }
        return pos;
    }

    /** Starts a response at {@code pos} with bytes up to {@code end}. */
    private int readOne(int pos, int end) {
        after.expect(false);
        return after.read(buf, pos, end);
    }
}
