package dev.peregrine.jmh.form;

import dev.peregrine.form.MultipartLimits;
import dev.peregrine.form.MultipartParser;
import dev.peregrine.form.PartHeaders;
import dev.peregrine.form.PartListener;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.multipart.DefaultHttpDataFactory;
import io.netty.handler.codec.http.multipart.HttpPostRequestDecoder;
import io.netty.handler.codec.http.multipart.InterfaceHttpData;
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

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Multipart parse throughput beside Netty's {@code HttpPostRequestDecoder} (netty-codec-http) in the
 * same run: the same body (three short fields and one binary file of {@code fileSize} bytes, boundary as
 * a browser makes it) fed in 16 KiB pieces, as a server reads it. MB/s = ops/s × body size (printed at
 * setup). Peregrine's listener touches each piece (sums its first byte) without keeping it, which is
 * the streaming use; Netty's decoder always keeps the parts it decodes (here in memory, its
 * {@code DefaultHttpDataFactory(false)}) and releases them at the end: each side's cheapest real use.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class MultipartParserBenchmark {
    static final String BOUNDARY = "----WebKitFormBoundary7MA4YWxkTrZu0gW";
    static final int PIECE = 16 * 1024;

    @Param({"65536", "1048576"})
    public int fileSize;

    private byte[] body;
    private ByteBuffer direct;
    private ByteBuf nettyBody;
    private final DefaultHttpDataFactory nettyFactory = new DefaultHttpDataFactory(false);
    private long sink;

    @Setup
    public void setup() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String f : new String[] {"title", "description", "tags"}) {
            out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"" + f + "\"\r\n\r\nsome text for " + f
                    + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"photo.jpg\"\r\n"
                + "Content-Type: image/jpeg\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        byte[] file = new byte[fileSize];
        long x = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < fileSize; i++) { // pseudo-random, as a compressed image: CRs, dashes, all byte values
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            file[i] = (byte) x;
        }
        out.writeBytes(file);
        out.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        body = out.toByteArray();
        direct = ByteBuffer.allocateDirect(body.length).put(body).flip();
        nettyBody = Unpooled.directBuffer(body.length).writeBytes(body);
        System.out.println("\nbody bytes: " + body.length);
    }

    @Benchmark
    public long peregrine() throws Exception {
        MultipartParser parser = new MultipartParser(BOUNDARY, MultipartLimits.DEFAULTS, new PartListener() {
            @Override
            public void onPartStart(PartHeaders headers) {
                sink += headers.name().length();
            }

            @Override
            public void onPartData(ByteBuffer data) {
                sink += data.get(data.position());
            }

            @Override
            public void onPartEnd() {
                sink++;
            }
        });
        for (int at = 0; at < body.length; at += PIECE) {
            ByteBuffer piece = direct.duplicate();
            piece.limit(Math.min(body.length, at + PIECE)).position(at);
            parser.feed(piece);
        }
        parser.finish();
        return sink;
    }

    @Benchmark
    public long netty() {
        HttpRequest req = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/upload");
        req.headers().set("Content-Type", "multipart/form-data; boundary=" + BOUNDARY);
        req.headers().set("Content-Length", body.length);
        HttpPostRequestDecoder decoder = new HttpPostRequestDecoder(nettyFactory, req);
        long n = 0;
        try {
            for (int at = 0; at < body.length; at += PIECE) {
                int len = Math.min(PIECE, body.length - at);
                ByteBuf piece = nettyBody.retainedSlice(at, len);
                decoder.offer(at + len == body.length ? new DefaultLastHttpContent(piece) : new DefaultHttpContent(piece));
                piece.release();
                while (decoder.hasNext()) {
                    InterfaceHttpData d = decoder.next();
                    n += d.getName().length();
                }
            }
        } finally {
            decoder.destroy();
        }
        return n;
    }

}
