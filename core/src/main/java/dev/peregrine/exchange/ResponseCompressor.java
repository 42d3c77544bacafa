package dev.peregrine.exchange;

import dev.peregrine.Compression;
import dev.peregrine.compress.Coding;
import dev.peregrine.compress.engine.Encoder;
import dev.peregrine.compress.engine.Encoders;
import dev.peregrine.http1.AcceptEncoding;
import dev.peregrine.http1.ResponseParts;
import dev.peregrine.http1.ResponseSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Compresses responses for one loop (see {@link Compression} for which): bodies in memory through one
 * reused encoder per coding ({@link #apply}), streamed bodies through an encoder borrowed for the
 * stream ({@link #startIncremental}, given back with {@link #endStream}). A whole body's compressed bytes
 * replace it until the encoder has copied them, which happens before the next response; they are
 * viewed through one reused {@link ByteBuffer}, so a compressed gzip, deflate or zstd response
 * allocates nothing once the output array has grown to its size (br: see
 * {@link dev.peregrine.compress.engine.BrotliEncoder}).
 *
 * <p>Thread: the owning loop only.
 */
public final class ResponseCompressor {
    /** Bytes a body producer may put per piece when its body is compressed. */
    public static final int STAGING = 16 * 1024;
    private final Compression settings;
    /** {@link Compression#minSize}, where every response is compared with it. */
    private final int minSize;
    private final Coding[] offered;
    private final Encoders encoders;
    private ByteBuffer view = ByteBuffer.allocate(0);
    private ByteBuffer staging;
    /** Where a direct in-memory body is copied to be compressed; grown, never shrunk. */
    private byte[] directCopy = new byte[0];

    public ResponseCompressor(Compression settings) {
        this.settings = settings;
        this.minSize = settings.minSize();
        this.offered = settings.codings().toArray(new Coding[0]);
        this.encoders = new Encoders(settings.level(), settings.brotliQuality(), 22, settings.zstdLevel());
    }

    /**
     * Compresses {@code res}'s body if {@code req} accepts a coding and the response qualifies. A caller
     * on the request path asks {@link ResponseView#compressible} with {@link #minSize} first (the same
     * test this begins with), so that a response too small to compress costs no call here.
     */
    public void apply(RequestView req, ResponseView res, boolean head) {
        if (!res.compressible(minSize)) {
            // Never compressed, whatever the client accepts: this answer does not vary, so no Vary
            // (a cache may give it to any client: identity is always acceptable, RFC 9110 §12.5.3).
            return;
        }
        Coding coding = negotiate(req, res, head);
        if (coding == null || res.special() != 0) {
            return;
        }
        byte[] array;
        int off;
        int len;
        if (ResponseParts.bodyKind(res) == ResponseSource.BODY_BYTES) {
            array = ResponseParts.bodyBytes(res);
            off = 0;
            len = array.length;
        } else if (ResponseParts.bodyKind(res) == ResponseSource.BODY_BUFFER && ResponseParts.bodyBuffer(res).hasArray()) {
            ByteBuffer b = ResponseParts.bodyBuffer(res);
            array = b.array();
            off = b.arrayOffset() + b.position();
            len = b.remaining();
        } else if (ResponseParts.bodyKind(res) == ResponseSource.BODY_CHARS) {
            array = ResponseParts.bodyChars(res).toString().getBytes(StandardCharsets.UTF_8);
            off = 0;
            len = array.length;
        } else if (ResponseParts.bodyKind(res) == ResponseSource.BODY_BUFFER) {
            // A direct buffer (an echoed request body, a view of pooled memory): the encoders take
            // arrays, so it is copied into one kept per loop, grown to the largest body seen.
            ByteBuffer b = ResponseParts.bodyBuffer(res);
            len = b.remaining();
            if (directCopy.length < len) {
                directCopy = new byte[Math.max(len, 2 * directCopy.length)];
            }
            b.get(b.position(), directCopy, 0, len);
            array = directCopy;
            off = 0;
        } else {
            return;
        }
        if (len < minSize) {
            return;
        }
        Encoder e = encoders.whole(coding);
        e.begin();
        e.write(array, off, len);
        e.finish();
        res.header("Content-Encoding", coding.token());
        if (view.array() != e.out()) {
            view = ByteBuffer.wrap(e.out());
        }
        view.limit(e.outLength()).position(0);
        res.body(view);
    }

    /** {@link Compression#minSize}: bodies certainly shorter are never compressed. */
    public int minSize() {
        return minSize;
    }

    /**
     * For a streamed body ({@code res.stream}, {@code res.outputStream}) whose head is about to be
     * written: adds Vary and, if the client accepts a coding, Content-Encoding, and returns the
     * encoder the stream's chunks go through (give it back with {@link #endStream}); else null.
     */
    public Encoder startIncremental(RequestView req, ResponseView res, boolean head) {
        Coding coding = negotiate(req, res, head);
        if (coding == null) {
            return null;
        }
        res.header("Content-Encoding", coding.token());
        return encoders.borrow(coding);
    }

    /** The stream of {@code e} ended or was abandoned. */
    public void endStream(Encoder e) {
        encoders.giveBack(e);
    }

    /**
     * A heap buffer a body producer fills before its bytes are compressed ({@value #STAGING} bytes),
     * the loop's one: used within one pump, never across calls.
     */
    public ByteBuffer staging() {
        if (staging == null) {
            staging = ByteBuffer.allocate(STAGING);
        }
        return staging;
    }

    /** Stream encoders lent and not given back (tests). */
    public int streamsLent() {
        return encoders.lent();
    }

    /** Frees the encoders' native memory (the loop stopped). */
    public void close() {
        encoders.close();
    }

    /** Vary for a compressible type, then the coding to use, or null when none applies. */
    private Coding negotiate(RequestView req, ResponseView res, boolean head) {
        int status = res.statusCode();
        if (status < 200 || status == 204 || status == 206 || status == 304 || !settings.compressible(ResponseParts.contentType(res))) {
            return null;
        }
        res.header("Vary", "Accept-Encoding");
        if (head || hasHeader(res, "Content-Encoding")) {
            return null;
        }
        return AcceptEncoding.choose(req.headerView("Accept-Encoding"), offered);
    }

    private static boolean hasHeader(ResponseView res, String name) {
        for (int i = 0; i < ResponseParts.headerCount(res); i++) {
            if (ResponseParts.headerName(res, i).equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}
