package dev.peregrine.jmh.compress;

import dev.peregrine.compress.Coding;
import dev.peregrine.compress.engine.Encoder;
import dev.peregrine.compress.engine.Encoders;
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

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A 4 KiB JSON body compressed the way a loop does it, per coding at the server's default levels
 * (deflate 6, brotli 4, zstd 3): {@code whole} is a body in memory through the loop's one encoder of
 * that coding; {@code streamed} is a stream's encoder borrowed, four 1 KiB pieces each written and
 * flushed, finished and given back. With {@code -prof gc}, B/op is what a compressed response
 * allocates: 0 for gzip, deflate and zstd once warm; br makes a native encoder per body (Brotli4j's
 * cannot be reset).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m", "--enable-native-access=ALL-UNNAMED"})
public class EncoderCompressBenchmark {
    @Param({"gzip", "deflate", "br", "zstd"})
    public String coding;

    private Encoders encoders;
    private Coding c;
    private byte[] json;

    @Setup
    public void setup() {
        c = Coding.of(coding);
        if (!c.available()) {
            throw new IllegalStateException(coding + " is not available here");
        }
        encoders = new Encoders(6, 4, 22, 3);
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; b.length() < 4096 - 80; i++) {
            b.append("{\"id\":").append(i).append(",\"name\":\"item ").append(i).append("\",\"ok\":true},");
        }
        b.setLength(b.length() - 1);
        b.append(']');
        json = b.toString().getBytes(StandardCharsets.UTF_8);
    }

    @TearDown
    public void close() {
        encoders.close();
    }

    @Benchmark
    public int whole() {
        Encoder e = encoders.whole(c);
        e.begin();
        e.write(json, 0, json.length);
        e.finish();
        return e.outLength();
    }

    @Benchmark
    public int streamed() {
        Encoder e = encoders.borrow(c);
        int n = 0;
        for (int off = 0; off < json.length; off += 1024) {
            e.write(json, off, Math.min(1024, json.length - off));
            e.flush();
            n += e.outLength();
            e.clearOut();
        }
        e.finish();
        n += e.outLength();
        encoders.giveBack(e);
        return n;
    }
}
