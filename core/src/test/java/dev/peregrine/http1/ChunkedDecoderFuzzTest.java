package dev.peregrine.http1;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Any bytes as a chunked body, delivered whole at a fuzzer-chosen offset in the buffer (a message
 * behind pipelined ones) and delivered in fuzzer-chosen pieces (compacted between pieces as the
 * connection does): the outcome is a message end, {@code NEED_MORE} or a
 * 400/413/431 rejection, never an exception, and both deliveries agree on the outcome and the body.
 */
public class ChunkedDecoderFuzzTest {
    private static final int HEAD = 7; // the body starts after a pretend head of this many bytes
    private final ByteBuffer whole = ByteBuffer.allocateDirect(70_000).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer pieces = ByteBuffer.allocateDirect(70_000).order(ByteOrder.LITTLE_ENDIAN);

    private static final ChunkedDecoderFuzzTest STANDALONE = new ChunkedDecoderFuzzTest();

    /** Entry point for standalone Jazzer ({@code scripts/fuzz}), which runs longer than JUnit's fixed duration. */
    public static void fuzzerTestOneInput(FuzzedDataProvider in) {
        STANDALONE.decode(in);
    }

    @FuzzTest(maxDuration = "10s")
    void decode(FuzzedDataProvider in) {
        int base = in.consumeInt(0, 4096); // where the message starts in the buffer for the whole delivery
        int maxBody = in.consumeInt(0, 70_000);
        int maxTrailers = in.consumeInt(1, 20_000);
        int[] cuts = new int[in.consumeInt(0, 8)];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = in.consumeInt(1, 4096);
        }
        byte[] body = in.consumeRemainingAsBytes();
        if (body.length + HEAD > 65_536) {
            return;
        }
        ChunkedDecoder one = new ChunkedDecoder();
        whole.clear();
        whole.put(base + HEAD, body);
        one.start(HEAD);
        int r1 = one.decode(whole, base, base + HEAD + body.length, maxBody, maxTrailers);
        check(r1, HEAD + body.length); // a length from the message's start, wherever it starts

        // The same bytes in pieces, the unfinished request compacted to index 0 before each next piece.
        ChunkedDecoder split = new ChunkedDecoder();
        split.start(HEAD);
        pieces.clear();
        int have = HEAD;
        int fed = 0;
        int r2 = ChunkedDecoder.NEED_MORE;
        int piece = 0;
        while (r2 == ChunkedDecoder.NEED_MORE && fed < body.length) {
            int n = Math.min(body.length - fed, piece < cuts.length ? cuts[piece++] : body.length);
            pieces.put(have, body, fed, n);
            have += n;
            fed += n;
            r2 = split.decode(pieces, 0, have, maxBody, maxTrailers);
            if (r2 == ChunkedDecoder.NEED_MORE) {
                have = split.compactInto(pieces, 0, have, pieces);
            }
        }
        if (body.length == 0) {
            r2 = split.decode(pieces, 0, have, maxBody, maxTrailers);
        }
        check(r2, have);
        if (r1 >= 0 && r2 >= 0) {
            assertEquals(one.decodedLength(), split.decodedLength());
            for (int i = 0; i < one.decodedLength(); i++) {
                assertEquals(whole.get(base + one.bodyStartRel() + i), pieces.get(split.bodyStartRel() + i), "decoded byte " + i);
            }
        } else {
            assertEquals(r1, r2, "whole and pieces end alike");
        }
    }

    private static void check(int r, int end) {
        if (r == ChunkedDecoder.NEED_MORE) {
            return;
        }
        if (r < 0) {
            assertTrue(r == -400 || r == -413 || r == -431, "unexpected status " + -r);
        } else {
            assertTrue(r > HEAD && r <= end, "message end " + r + " of " + end);
        }
    }
}
