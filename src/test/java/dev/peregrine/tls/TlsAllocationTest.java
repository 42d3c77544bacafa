package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLSocket;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Heap allocated on the loop thread per request over an established TLS connection
 * ({@code com.sun.management.ThreadMXBean#getThreadAllocatedBytes}), keep-alive and pipelined,
 * against a baseline measured in the same JVM: a bare {@code SSLEngine} of the same provider doing
 * just the record work each request needs (one unwrap of the request's record, one wrap of the
 * response's). {@code SSLEngine.wrap/unwrap} return a new {@code SSLEngineResult} per call by API
 * design and the providers allocate inside their record layers, so "zero" cannot be promised over
 * JSSE; what is asserted is that the server adds at most {@link #OURS} bytes per request to what the
 * engine itself costs.
 */
class TlsAllocationTest {
    private static final byte[] GET = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    /** Bytes per request the server may add to the bare engine's cost (an extra SSLEngineResult or two). */
    private static final int OURS = 256;

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void bytesPerRequestOnTheLoopThread(String transport, TlsConfig.Provider provider) throws Exception {
        AtomicLong loopThread = new AtomicLong();
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).transport(transport)
                .http2(false) // HTTP/1.1 over TLS: the client offers ALPN h2 first
                .get("/thread", (req, res) -> {
                    loopThread.set(Thread.currentThread().getId());
                    res.text("ok");
                })
                .https(0, TlsTesting.tls(provider).build()).start();
             SSLSocket s = TlsTesting.connect(server.httpsPort(), "TLSv1.3", null)) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            out.write("GET /thread HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            RawResponse.read(in).wire();
            out.write(GET);
            int responseLength = RawResponse.read(in).wire().length();
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long id = loopThread.get();

            run(out, in, 3000, 1); // warm-up
            long before = mx.getThreadAllocatedBytes(id);
            int n = 5000;
            run(out, in, n, 1);
            double keepAlive = (mx.getThreadAllocatedBytes(id) - before) / (double) n;

            run(out, in, 200, 16);
            before = mx.getThreadAllocatedBytes(id);
            run(out, in, 300, 16);
            double pipelined = (mx.getThreadAllocatedBytes(id) - before) / (300.0 * 16);

            // The same record sizes as the requests and responses above, one pair per request or per batch.
            double engineKeepAlive = EngineBaseline.bytesPerRecordPair(provider, GET.length, responseLength);
            double engineBatch = EngineBaseline.bytesPerRecordPair(provider, 16 * GET.length, 16 * responseLength);
            String figures = String.format("TLS allocation on the loop thread, %s %s: %.0f B/request keep-alive"
                    + " (bare engine %.0f), %.0f B/request pipelined x16 (bare engine %.0f)",
                    transport, provider, keepAlive, engineKeepAlive, pipelined, engineBatch / 16);
            System.out.println(figures);
            assertTrue(keepAlive <= engineKeepAlive + OURS, figures);
            assertTrue(pipelined <= engineBatch / 16 + OURS, figures);
        }
    }

    private static void run(OutputStream out, InputStream in, int rounds, int depth) throws Exception {
        byte[] batch = new byte[GET.length * depth];
        for (int i = 0; i < depth; i++) {
            System.arraycopy(GET, 0, batch, i * GET.length, GET.length);
        }
        for (int r = 0; r < rounds; r++) {
            out.write(batch);
            for (int i = 0; i < depth; i++) {
                RawResponse.read(in).wire();
            }
        }
    }
}
