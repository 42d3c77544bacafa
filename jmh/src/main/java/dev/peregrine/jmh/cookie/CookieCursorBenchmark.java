package dev.peregrine.jmh.cookie;

import dev.peregrine.cookie.CookieCursor;
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
 * A browser's {@code Cookie} field (analytics cookies, a session, a quoted value; 9 cookies) read with
 * the cursor from a direct buffer, as {@code req.cookies().cursor()} does: every cookie visited, the session
 * found by name and its value compared. Run with {@code -prof gc}: the target is 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class CookieCursorBenchmark {
    static final String COOKIE = "_ga=GA1.2.1234567890.1699999999; _gid=GA1.2.987654321.1700000000; theme=dark; "
            + "lang=en-GB; consent=\"analytics=1,ads=0\"; cart=3; visited=1; "
            + "session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqb3JnIn0.c2lnbmF0dXJl; _fbp=fb.1.1700000000.42";

    private ByteBuffer buf;
    private final CookieCursor cursor = new CookieCursor();

    @Setup
    public void setup() {
        byte[] b = COOKIE.getBytes(StandardCharsets.US_ASCII);
        buf = ByteBuffer.allocateDirect(b.length).put(b).flip();
    }

    @Benchmark
    public int findSession() {
        CookieCursor c = cursor.reset(buf).add(0, buf.limit());
        int n = 0;
        while (c.next()) {
            n++;
            if (c.nameIs("session") && c.valueView().length() > 40) {
                n += 100;
            }
        }
        return n;
    }
}
