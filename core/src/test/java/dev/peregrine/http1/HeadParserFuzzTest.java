package dev.peregrine.http1;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.peregrine.exchange.RequestView;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any bytes through {@link HeadParser}: the only outcomes are a head's end inside the input,
 * {@code NEED_MORE}, or a rejection with one of the statuses of its table; never an exception. A
 * head that parsed parses the same from its own bytes alone (restartable), and
 * {@link HeadParser#findHeadEnd} agrees that it ended.
 *
 * <p>In the normal test run only the seeds in {@code HeadParserFuzzTestInputs/} run;
 * {@code scripts/fuzz HeadParserFuzzTest 10m} fuzzes.
 */
public class HeadParserFuzzTest {
    private final HeadParser parser = new HeadParser(8192, 16384, 100);
    private final RequestView view = new RequestView(100);
    private final ByteBuffer buf = ByteBuffer.allocateDirect(70_000).order(ByteOrder.LITTLE_ENDIAN);

    private static final HeadParserFuzzTest STANDALONE = new HeadParserFuzzTest();

    /** Entry point for standalone Jazzer ({@code scripts/fuzz}), which runs longer than JUnit's fixed duration. */
    public static void fuzzerTestOneInput(byte[] data) {
        STANDALONE.parse(data);
    }

    @FuzzTest(maxDuration = "10s")
    void parse(byte[] data) {
        if (data.length > 65_536) {
            return;
        }
        buf.clear();
        buf.put(0, data);
        int r = parser.parse(buf, 0, data.length, view);
        if (r == HeadParser.NEED_MORE) {
            return;
        }
        if (r < 0) {
            int status = -r;
            assertTrue(status == 400 || status == 414 || status == 417 || status == 431 || status == 501
                    || status == 505, "unexpected status " + status);
            return;
        }
        assertTrue(r > 0 && r <= data.length, "head end " + r + " of " + data.length);
        assertEquals(r, parser.parse(buf, 0, r, view), "the head alone parses the same");
        // The framer skips the empty lines before a request line (RFC 9112 §2.2) before it looks for the
        // head's end, so that their CRLFs are not taken for the empty line that ends the head.
        int lineStart = HeadParser.skipEmptyLines(buf, 0, r);
        assertEquals(r, HeadParser.findHeadEnd(buf, lineStart, lineStart, r), "findHeadEnd agrees where the head ends");
        view.method();
        view.path();
        view.rawQuery();
        for (int i = 0; i < view.headers().size(); i++) {
            view.headers().name(i).toString();
            view.headers().value(i).toString();
        }
    }
}
