package dev.peregrine.h2;

import dev.peregrine.buffer.BufferPool;
import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.hpack.HpackDecoder;
import dev.peregrine.h2.hpack.HpackTable;

import java.nio.ByteBuffer;

import static dev.peregrine.h2.frame.Frames.FLAG_END_HEADERS;

/**
 * The field block a connection is assembling: HEADERS, then CONTINUATION frames until END_HEADERS
 * (RFC 9113 §4.3, §6.10), and its decoding.
 * <pre>
 *   begin(HEADERS) --append(frame)--&gt; MORE ... --append(frame with END_HEADERS)--&gt; WHOLE --decode--&gt; fields
 *                   past maxHeaderBlockBytes or maxHeaderBlockFrames --&gt; FLOOD (the connection ends:
 *                   a block can be neither skipped nor half-decoded, HPACK would fall out of step)
 * </pre>
 * A block in one frame is decoded where it lies; one that spans frames is copied into a pooled buffer,
 * given back once decoded. It is always decoded, even for a stream about to be refused, so that the
 * connection's HPACK table stays in step with the peer's; the decoder is the connection's.
 * The fields are checked by the loop's {@link RequestHeaders} (one per loop: a block is decoded and
 * acted on within one call on the loop thread). A connection holds a {@code HeaderBlock} only from
 * its HEADERS frame until the block is decoded, lent by the loop ({@link Http2Loop#block}), so an idle
 * connection holds none.
 *
 * <p>Thread: the loop thread.
 */
final class HeaderBlock {
    static final int MORE = 0;
    static final int WHOLE = 1;
    static final int FLOOD = 2;

    /** The stream whose block this is. */
    int stream;
    boolean endStream;
    /** The stream error to answer once the block is decoded, 0, or {@link #IGNORED}. */
    int error;
    /** {@link #error}: a block on a stream we reset, decoded (HPACK stays in step) and dropped (RFC 9113 §5.1). */
    static final int IGNORED = -1;
    /** The loop's checker of decoded fields ({@link Http2Loop#requestHeaders}), set by {@link #decode}. */
    RequestHeaders fields;
    private int frames;
    private ByteBuffer held;
    private int length;
    private ByteBuffer src;
    private int from;
    private int to;
    /** Where {@link #decode} put the fields. */
    ByteBuffer decoded;

    void begin(int id, boolean endStream, int error) {
        this.stream = id;
        this.endStream = endStream;
        this.error = error;
        frames = 0;
        length = 0;
    }

    /** Adds the fragment of the frame {@code p} parsed in {@code b}; returns MORE, WHOLE or FLOOD. */
    int append(FrameParser p, ByteBuffer b, BufferPool pool, Http2Settings settings) {
        int n = p.dataEnd() - p.dataStart();
        if (++frames > settings.maxHeaderBlockFrames || length + n > settings.maxHeaderBlockBytes) {
            return FLOOD;
        }
        boolean last = p.flag(FLAG_END_HEADERS);
        if (last && length == 0) { // the common case: decoded where it lies
            src = b;
            from = p.dataStart();
            to = p.dataEnd();
            return WHOLE;
        }
        if (held == null || held.capacity() < length + n) {
            held = held == null ? pool.acquire(length + n) : pool.grow(held, 0, length, length + n);
        }
        held.put(length, b, p.dataStart(), n);
        length += n;
        if (!last) {
            return MORE;
        }
        src = held;
        from = 0;
        to = length;
        return WHOLE;
    }

    /**
     * Decodes the whole block into the loop's buffer, {@link RequestHeaders} checking and laying out
     * each field. Returns the end of the fields in {@link #decoded}, or -1 for a COMPRESSION_ERROR.
     * The same bytes as the block decoded last on this loop, by the same decoder, when decoding that
     * block left the decoder's table as it was ({@link HpackTable#version()} unmoved: indexed fields,
     * RFC 7541 §6.1, and literals without indexing or never indexed, §6.2.2-6.2.3, which is how
     * h2load and nghttp2 send {@code :path}) and the table has not moved since, are not decoded again:
     * the loop's buffer and checker still hold the result ({@link Http2Loop#repeatDecoder}). Decoding
     * is a function of the bytes and the table, so the result is the same. The same decoder is either
     * one connection's own or the loop's pristine one ({@link Http2Loop#giveIfPristine}), whose empty
     * table of the maximum size makes the result the same for whichever connection it is lent to.
     */
    int decode(HpackDecoder decoder, Http2Loop shared, boolean trailers, int maxFields, BufferPool pool) {
        fields = shared.requestHeaders;
        int n = to - from;
        HpackTable table = decoder.table();
        int version = table.version();
        if (shared.repeatDecoder == decoder && version == shared.repeatVersion && n == shared.repeatLength
                && trailers == shared.repeatTrailers && maxFields == shared.repeatMaxFields && same(src, from, shared.repeatBytes, n)) {
            decoded = shared.decoded(0);
            src = null;
            release(pool);
            return shared.repeatEnd;
        }
        int bound = decoder.destinationBound(n, RequestHeaders.PREFIX);
        decoded = shared.decoded(bound);
        fields.begin(trailers, maxFields);
        int end = decoder.decode(src, from, to, decoded, 0, bound, RequestHeaders.PREFIX, fields);
        if (end >= 0 && n <= Http2Loop.REPEAT_MAX && table.version() == version) {
            shared.repeatDecoder = decoder;
            shared.repeatVersion = version;
            src.get(from, shared.repeatBytes, 0, n);
            shared.repeatLength = n;
            shared.repeatEnd = end;
            shared.repeatTrailers = trailers;
            shared.repeatMaxFields = maxFields;
        } else {
            shared.repeatDecoder = null;
        }
        src = null;
        release(pool);
        return end < 0 ? -1 : end;
    }

    private static boolean same(ByteBuffer b, int from, byte[] bytes, int n) {
        for (int i = 0; i < n; i++) {
            if (b.get(from + i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    /** Gives back the buffer of a block that spanned frames (what else it points to is the loop's). */
    void release(BufferPool pool) {
        if (held != null) {
            pool.release(held);
            held = null;
        }
        src = null;
        length = 0;
    }
}
