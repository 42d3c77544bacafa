package dev.peregrine.jmh.form;

import dev.peregrine.form.FormCursor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * An urlencoded form (a login form as a browser posts it, 8 fields, escapes and '+') read with the
 * cursor from a direct buffer, as a handler reads {@code req.form().pairs()}: every pair visited, two names
 * compared decoded, one value decoded into a reused array. Run with {@code -prof gc}: the target is 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class FormCursorBenchmark {
    static final String FORM = "csrf=9f8a7b6c5d4e3f2a1b0c&user=j%C3%B6rg.m%40example.com&password=s3cr3t%21%26more"
            + "&remember=on&lang=de-DE&tz=Europe%2FBerlin&q=hello+world&next=%2Faccount%2Fsettings%3Ftab%3D2";

    private ByteBuffer buf;
    private final FormCursor cursor = new FormCursor();
    private final byte[] scratch = new byte[256];

    @Setup
    public void setup() {
        byte[] b = FORM.getBytes(StandardCharsets.US_ASCII);
        buf = ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    @Benchmark
    public int iterateCompareDecode() {
        FormCursor c = cursor.reset(buf, 0, buf.limit());
        int found = 0;
        while (c.next()) {
            if (c.nameIs("user")) {
                found += c.decodeValue(scratch, 0);
            } else if (c.nameIs("remember")) {
                found += c.valueIs("on") ? 1 : 0;
            }
        }
        return found;
    }
}
