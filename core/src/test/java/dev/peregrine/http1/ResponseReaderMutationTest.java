package dev.peregrine.http1;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ResponseReader} on mutations of valid responses (a byte replaced, inserted, deleted or
 * doubled, chosen from the bytes that matter to framing): whatever a server sends, the reader ends
 * with a response or a reason, never an exception or a loop, and the outcome is the same whether the
 * bytes arrive whole or split at any byte. Seeded, so a failure repeats; the seed is in the message.
 */
class ResponseReaderMutationTest {
    private static final String[] SAMPLES = {
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX: y\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n6\r\n world\r\n0\r\nT: v\r\n\r\n",
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 204 No Content\r\nDate: x\r\n\r\n",
        "HTTP/1.0 200 OK\r\n\r\nuntil close",
    };
    /** Bytes that move framing: delimiters, digits, hex, controls, a high byte. */
    private static final byte[] INTERESTING = " \t\r\n:;=\"0123459aAfFxX-+\u0000\u007f\u00ff".getBytes(StandardCharsets.ISO_8859_1);
    private static final int MAX_BODY = 1000;

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4})
    void everyMutationEndsTheSameAtEverySplitWithAResponseOrAReason(int sample) {
        byte[] valid = SAMPLES[sample].getBytes(StandardCharsets.ISO_8859_1);
        for (int seed = 0; seed < 300; seed++) {
            byte[] wire = mutate(valid, new SplittableRandom(sample * 1_000_003L + seed));
            String whole;
            try {
                whole = outcome(wire, 0);
            } catch (RuntimeException e) {
                throw new AssertionError("seed " + seed + ", whole: " + show(wire), e);
            }
            assertTrue(whole.startsWith("response ") || whole.startsWith("error: "), whole);
            for (int k = 1; k < wire.length; k++) {
                String split;
                try {
                    split = outcome(wire, k);
                } catch (RuntimeException e) {
                    throw new AssertionError("seed " + seed + ", split at " + k + ": " + show(wire), e);
                }
                assertEquals(whole, split, "seed " + seed + ", split at " + k + ": " + show(wire));
            }
        }
    }

    private static byte[] mutate(byte[] valid, SplittableRandom rnd) {
        byte[] w = valid;
        int edits = 1 + rnd.nextInt(2);
        for (int e = 0; e < edits; e++) {
            int at = rnd.nextInt(w.length);
            byte b = INTERESTING[rnd.nextInt(INTERESTING.length)];
            switch (rnd.nextInt(4)) {
                case 0: // replace
                    w = w.clone();
                    w[at] = b;
                    break;
                case 1: // insert
                    w = concat(Arrays.copyOf(w, at), new byte[] {b}, Arrays.copyOfRange(w, at, w.length));
                    break;
                case 2: // delete
                    w = w.length > 1 ? concat(Arrays.copyOf(w, at), Arrays.copyOfRange(w, at + 1, w.length)) : w;
                    break;
                default: // double a byte
                    w = concat(Arrays.copyOf(w, at + 1), Arrays.copyOfRange(w, at, w.length));
                    break;
            }
        }
        return w;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int i = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, i, p.length);
            i += p.length;
        }
        return out;
    }

    /**
     * Feeds {@code wire} in two pieces split at {@code k} (0: whole) the way the client connection
     * does ({@link ResponseFeeding#feedAllowingMore}: bytes may follow the response), then ends the
     * input. Returns "response STATUS BODY +N unread" or "error: REASON".
     */
    private static String outcome(byte[] wire, int k) {
        ResponseReader r = new ResponseReader(16 * 1024, MAX_BODY);
        r.expect(false);
        ResponseFeeding.Outcome o = ResponseFeeding.feedAllowingMore(r, wire, k);
        if (o.error()) {
            // the reason's kind; the detail after ':' may be shorter when a prefix was refused early
            String why = r.error();
            int colon = why.indexOf(':');
            return "error: " + (colon > 0 ? why.substring(0, colon) : why);
        }
        return "response " + r.status() + " " + o.body() + " +" + o.unread() + " unread";
    }

    private static String show(byte[] wire) {
        return new String(wire, StandardCharsets.ISO_8859_1).replace("\r", "\\r").replace("\n", "\\n").replace("\u0000", "\\0");
    }
}
