package dev.peregrine.loop;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.peregrine.Server;
import dev.peregrine.route.Router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any bytes, in fuzzer-chosen pieces, through a whole {@link HttpConnection} on a
 * {@link MemoryEndpoint}, with a peer that reads its responses in fuzzer-chosen amounts: whatever
 * comes out is HTTP responses (or nothing), nothing throws, the connection never livelocks, and once
 * it is closed every pooled buffer is back.
 */
public class HttpConnectionFuzzTest {
    private static final byte[] BIG = new byte[100_000];
    private static final Router ROUTER = Router.builder()
            .add("GET", "/plaintext", (req, res) -> res.text("Hello, World!"))
            .add("GET", "/big", (req, res) -> res.body(BIG))
            .add("POST", "/echo", (req, res) -> res.body(req.body()))
            .build();

    private static final HttpConnectionFuzzTest STANDALONE = new HttpConnectionFuzzTest();

    /** Entry point for standalone Jazzer ({@code scripts/fuzz}), which runs longer than JUnit's fixed duration. */
    public static void fuzzerTestOneInput(FuzzedDataProvider in) {
        STANDALONE.connection(in);
    }

    /** Loops with different limits, reused across inputs as a real loop is across connections. */
    private final LoopContext[] loops = {
        loop(Server.builder()),
        loop(Server.builder().maxHeadSize(256).maxBodySize(1000).readBufferSize(1024).writeBufferSize(1024)),
        loop(Server.builder().maxPendingOutput(1).maxPipelinedRequests(1)),
        loop(Server.builder().maxBodySize(200_000).maxPendingOutput(300_000).maxPipelinedRequests(300)
                .readBufferSize(4096).maxRequestsPerConnection(3)),
    };

    private static LoopContext loop(Server.Builder settings) {
        return new LoopContext(dev.peregrine.TestConfigs.of(settings), ROUTER);
    }

    @FuzzTest(maxDuration = "10s")
    void connection(FuzzedDataProvider in) {
        ConnectionHarness h = new ConnectionHarness(loops[in.consumeInt(0, loops.length - 1)]);
        int pieces = in.consumeInt(1, 32);
        for (int i = 0; i < pieces && in.remainingBytes() > 0 && !h.closed(); i++) {
            h.io.feed(in.consumeBytes(in.consumeInt(1, 70_000)));
            h.peerReads(in.consumeInt(0, 200_000));
        }
        h.io.endOfInput();
        h.peerReads(Integer.MAX_VALUE);
        String out = h.written();
        assertTrue(out.isEmpty() || out.startsWith("HTTP/1.1 "), "output starts a response");
        h.connection.close();
        assertEquals(0, h.ctx.pool().lentCount(), "every buffer is back");
        assertEquals(0, h.ctx.timers().armed(), "no timer left armed");
    }
}
