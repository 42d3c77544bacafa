package dev.peregrine.jmh.websocket;

import dev.peregrine.websocket.codec.FrameHeader;
import dev.peregrine.websocket.codec.FrameWriter;
import dev.peregrine.websocket.codec.Masking;
import dev.peregrine.websocket.codec.Utf8Validator;
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
import java.util.concurrent.TimeUnit;

/**
 * The server's per-message frame path with compression off, as {@code WebSocketProtocol} runs it for
 * a whole message that arrived in one read: the masked client frame lands in a direct read buffer (a
 * copy from a template, standing in for the socket read, since unmasking works in place), its header is
 * parsed in place ({@link FrameHeader}), the payload unmasked a word at a time ({@link Masking}), a text
 * payload checked as UTF-8 ({@link Utf8Validator}), and the echo encoded into a direct write buffer
 * (header by {@link FrameWriter}, payload copied). {@code size} is the payload in bytes (16 and 4 KiB,
 * the sizes of {@code scripts/bench-ws}); {@code text} picks a text or binary frame.
 *
 * <p>Run with {@code -prof gc}: the target is 0 B/op ({@code scripts/jmh WebSocketFrameEchoBenchmark -prof gc}).
 * The loop's dispatch and the socket calls are not in it; {@code scripts/bench-ws} measures the whole
 * server beside Netty.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class WebSocketFrameEchoBenchmark {
    @Param({"16", "4096"})
    public int size;

    @Param({"true", "false"})
    public boolean text;

    private ByteBuffer template;
    private final ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
    private final ByteBuffer out = ByteBuffer.allocateDirect(64 * 1024);
    private final FrameHeader header = new FrameHeader();
    private final Utf8Validator utf8 = new Utf8Validator();

    @Setup
    public void setUp() {
        byte[] payload = new byte[size];
        for (int i = 0; i < size; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        byte[] key = {0x37, (byte) 0xfa, 0x21, 0x3d};
        int h = size < 126 ? 2 : 4;
        ByteBuffer f = ByteBuffer.allocateDirect(h + 4 + size);
        f.put((byte) (0x80 | (text ? FrameHeader.OP_TEXT : FrameHeader.OP_BINARY)));
        if (size < 126) {
            f.put((byte) (0x80 | size));
        } else {
            f.put((byte) (0x80 | 126)).put((byte) (size >>> 8)).put((byte) size);
        }
        f.put(key);
        for (int i = 0; i < size; i++) {
            f.put((byte) (payload[i] ^ key[i & 3]));
        }
        template = f.flip();
    }

    @Benchmark
    public int echo() {
        in.clear();
        in.put(0, template, 0, template.limit()); // the socket read
        int end = template.limit();
        int h = header.parse(in, 0, end);
        if (h < 0 || !header.masked() || !header.fin()) {
            throw new IllegalStateException("bad frame " + h);
        }
        int n = (int) header.payloadLength();
        Masking.unmask(in, h, h + n, header.maskKey(), 0);
        boolean isText = header.opcode() == FrameHeader.OP_TEXT;
        if (isText) {
            utf8.reset();
            if (!(utf8.feed(in, h, h + n) && utf8.complete())) {
                throw new IllegalStateException("invalid UTF-8");
            }
        }
        out.clear();
        FrameWriter.putHeader(out, FrameWriter.FIN | header.opcode(), n);
        out.put(out.position(), in, h, n);
        return out.position() + n;
    }
}
