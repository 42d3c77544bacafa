package dev.peregrine.loop;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.peregrine.Server;
import dev.peregrine.route.Router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any bytes through a whole {@link Connection} on a {@link MemoryEndpoint}, differentially:
 * delivered in one piece to a peer that reads everything, and in fuzzer-chosen pieces to a peer that
 * reads in fuzzer-chosen amounts, the responses must be the same (but for the Date line and
 * {@code 100 Continue}). Also: nothing throws, the connection never livelocks, and once it is closed
 * every pooled buffer is back and no timer is armed.
 */
public class ConnectionFuzzTest {
    private static final byte[] BIG = new byte[100_000];
    private static final Router ROUTER = Router.builder()
            .add("GET", "/plaintext", (req, res) -> res.text("Hello, World!"))
            .add("GET", "/big", (req, res) -> res.body(BIG))
            .add("POST", "/echo", (req, res) -> res.body(req.body()))
            .build();

    private static final ConnectionFuzzTest STANDALONE = new ConnectionFuzzTest();

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
        return dev.peregrine.TestConfigs.serverLoop(dev.peregrine.TestConfigs.of(settings), ROUTER);
    }

    @FuzzTest(maxDuration = "10s")
    void connection(FuzzedDataProvider in) {
        LoopContext loop = loops[in.consumeInt(0, loops.length - 1)];
        int[] pieces = new int[in.consumeInt(1, 32)];
        int[] reads = new int[pieces.length];
        for (int i = 0; i < pieces.length; i++) {
            pieces[i] = in.consumeInt(1, 70_000);
            reads[i] = in.consumeInt(0, 200_000);
        }
        byte[] data = in.consumeRemainingAsBytes();

        // The same bytes twice: in one piece to a peer that reads everything, and in the chosen
        // pieces to a peer that reads in the chosen amounts. The responses must be the same.
        ConnectionHarness whole = new ConnectionHarness(loop);
        whole.io.feed(data);
        whole.run();
        String expected = finish(whole);

        ConnectionHarness split = new ConnectionHarness(loop);
        int fed = 0;
        for (int i = 0; i < pieces.length && fed < data.length && !split.closed(); i++) {
            int n = i == pieces.length - 1 ? data.length - fed : Math.min(pieces[i], data.length - fed);
            split.io.feed(java.util.Arrays.copyOfRange(data, fed, fed + n));
            fed += n;
            split.peerReads(reads[i]);
        }
        String actual = finish(split);
        if (fed == data.length) {
            assertEquals(comparable(expected), comparable(actual), "whole and split delivery answer alike");
        } else {
            // The split connection closed before all bytes were fed (a rejection): same answers so far.
            assertTrue(comparable(expected).startsWith(comparable(actual)), "split answered a prefix of whole");
        }
    }

    /** Ends the input, lets the peer read everything, closes, and checks nothing is left behind. */
    private static String finish(ConnectionHarness h) {
        if (!h.closed()) {
            h.io.endOfInput();
        }
        h.peerReads(Integer.MAX_VALUE);
        String out = h.written();
        assertTrue(out.isEmpty() || out.startsWith("HTTP/1.1 "), "output starts a response");
        h.connection.close();
        assertEquals(0, h.ctx.pool().lentCount(), "every buffer is back");
        assertEquals(0, h.ctx.timers().armed(), "no timer left armed");
        return out;
    }

    /**
     * The output without what legitimately depends on how the bytes arrived: the Date line (the
     * clock may tick between the runs) and interim {@code 100 Continue} responses, which are sent
     * only while a body is still missing.
     */
    private static String comparable(String out) {
        return out.replace("HTTP/1.1 100 Continue\r\n\r\n", "").replaceAll("\r\nDate: [^\r]*", "");
    }
}
