package dev.peregrine;

import dev.peregrine.compress.BodyDecodingException;
import dev.peregrine.compress.engine.GzipBodyDecoder;

import java.nio.ByteBuffer;

/**
 * Opt-in decoding of request bodies sent with {@code Content-Encoding: gzip} (RFC 9110 §8.4). Without
 * it the server leaves every body as the client sent it. As a filter for every route
 * ({@code .filter(RequestDecoding.gzip(maxBytes))}) or around one handler
 * ({@code .post("/ingest", RequestDecoding.gzip(maxBytes, handler))}):
 * <ul>
 *   <li>no Content-Encoding, or {@code identity}: the request goes on untouched;</li>
 *   <li>every Content-Encoding field line is read, as one list (RFC 9110 §5.3, §8.4), and
 *       {@code identity} members are left out (they name no transformation): {@code identity} then
 *       {@code gzip}, on one line or two, is gzip;</li>
 *   <li>{@code gzip} (or {@code x-gzip}): the handler sees the decoded body through {@code body()},
 *       {@code bodyString()}, {@code form()}, {@code bodyStream()}... and no Content-Encoding.
 *       A body in memory is decoded before the handler runs: more than {@code maxDecodedBytes} decoded
 *       bytes gives 413, a corrupt or truncated stream 400, the handler never runs. A body streamed
 *       to a blocking handler ({@code streamBodyThreshold}) is decoded as the handler reads; a read
 *       past the cap or into corrupt data throws a {@link BodyDecodingException}, which becomes that
 *       413 or 400 when the handler lets it out before answering;</li>
 *   <li>any other coding, or several (gzip twice included): 415 with {@code Accept-Encoding: gzip} (RFC 9110
 *       §15.5.16), never the body passed on still coded.</li>
 * </ul>
 * Decoded bytes are never held beyond the cap plus 16 KiB, whatever the coded body inflates to.
 * Decoding allocates (the decoded body on the heap, an inflater per request), so it is for routes that
 * take compressed uploads, not for the plaintext path.
 *
 * <p>Thread: any (the filters are stateless).
 */
public final class RequestDecoding {
    private RequestDecoding() {
    }

    /** A filter decoding gzip request bodies of up to {@code maxDecodedBytes} bytes (see the class doc). */
    public static Filter gzip(long maxDecodedBytes) {
        if (maxDecodedBytes < 0 || maxDecodedBytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("maxDecodedBytes must be 0 to 2^31 - 9: " + maxDecodedBytes);
        }
        return (req, res, next) -> decode(req, res, next, maxDecodedBytes);
    }

    /** {@code handler} behind {@link #gzip(long)}: decoding for one route. */
    public static Handler gzip(long maxDecodedBytes, Handler handler) {
        Filter f = gzip(maxDecodedBytes);
        java.util.Objects.requireNonNull(handler, "handler");
        return (req, res) -> f.filter(req, res, handler);
    }

    private static void decode(Request req, Response res, Handler next, long max) throws Exception {
        if (req.headers().view("Content-Encoding") == null) {
            next.handle(req, res); // the common case: no coding, nothing read further
            return;
        }
        java.util.List<String> codings = codings(req);
        if (codings.isEmpty()) {
            next.handle(req, res); // identity only
            return;
        }
        if (codings.size() != 1 || !(codings.get(0).equals("gzip") || codings.get(0).equals("x-gzip"))) {
            res.header("Accept-Encoding", "gzip").error(415);
            return;
        }
        if (req.bodyStreamed()) {
            try {
                next.handle(new DecodedRequest(req, null, GzipBodyDecoder.stream(req.bodyStream(), max)), res);
            } catch (BodyDecodingException e) {
                res.error(e.status()); // throws if the response has already begun: the connection then closes
            }
            return;
        }
        ByteBuffer decoded;
        try {
            decoded = GzipBodyDecoder.decode(req.body(), max);
        } catch (BodyDecodingException e) {
            res.error(e.status());
            return;
        }
        next.handle(new DecodedRequest(req, decoded, null), res);
    }

    /**
     * The codings of every {@code Content-Encoding} field line, in the order they were applied (RFC 9110
     * §8.4: a list; several field lines are one list, §5.3), lower-cased, with {@code identity} left out:
     * it names no transformation (§8.4.1), so {@code identity} and {@code gzip}, on one line or two, is
     * gzip. Empty members (a stray comma) are ignored, as §5.6.1 asks of a recipient.
     */
    static java.util.List<String> codings(Request req) {
        java.util.List<String> out = new java.util.ArrayList<>(2);
        Headers fields = req.headers();
        for (int i = 0, n = fields.size(); i < n; i++) {
            if (!"content-encoding".contentEquals(lower(fields.name(i)))) {
                continue;
            }
            for (String member : fields.value(i).toString().split(",", -1)) {
                String coding = member.strip().toLowerCase(java.util.Locale.ROOT);
                if (!coding.isEmpty() && !coding.equals("identity")) {
                    out.add(coding);
                }
            }
        }
        return out;
    }

    private static String lower(CharSequence name) {
        return name.length() == 16 ? name.toString().toLowerCase(java.util.Locale.ROOT) : "";
    }
}
