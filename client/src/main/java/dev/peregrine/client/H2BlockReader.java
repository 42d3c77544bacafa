package dev.peregrine.client;

import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.hpack.HpackDecoder;

import java.nio.ByteBuffer;

/**
 * The response field block an {@link Http2ClientConnection} is assembling and its decoding (RFC 9113
 * §4.3, §6.10): HEADERS, then CONTINUATION frames until END_HEADERS. A block in one frame is decoded
 * where it lies; one that spans frames is copied here first, up to 4 times {@code maxHeadSize} (past
 * that the connection ends: a block can be neither skipped nor half-decoded). The connection's one
 * {@link HpackDecoder} (its dynamic table follows the server's encoder) decodes every block, a reset
 * stream's too, into {@link H2Fields}.
 *
 * <p>Thread: the connection's loop thread.
 */
final class H2BlockReader {
    /** HPACK's default table size: we send no SETTINGS_HEADER_TABLE_SIZE. */
    private static final int HEADER_TABLE_SIZE = 4096;

    final H2Fields fields = new H2Fields();
    private final HpackDecoder decoder;
    private final int maxBlock;
    /** The stream whose block this is; 0 when none is being assembled. */
    int stream;
    boolean endStream;
    private ByteBuffer held;
    private int heldLength;
    private ByteBuffer decoded = ByteBuffer.allocate(0);

    H2BlockReader(int maxHeadSize) {
        this.decoder = new HpackDecoder(HEADER_TABLE_SIZE, maxHeadSize);
        this.maxBlock = 4 * maxHeadSize;
    }

    int maxBlock() {
        return maxBlock;
    }

    void begin(int stream, boolean endStream) {
        this.stream = stream;
        this.endStream = endStream;
        heldLength = 0;
    }

    /** Copies the fragment of the frame {@code p} parsed in {@code b}; false when the block grew past its cap. */
    boolean hold(FrameParser p, ByteBuffer b) {
        int n = p.dataEnd() - p.dataStart();
        if (heldLength + n > maxBlock) {
            return false;
        }
        if (held == null || held.capacity() < heldLength + n) {
            ByteBuffer bigger = ByteBuffer.allocate(Math.max(heldLength + n, 2 * (held == null ? 1024 : held.capacity())));
            if (held != null) {
                bigger.put(0, held, 0, heldLength);
            }
            held = bigger;
        }
        held.put(heldLength, b, p.dataStart(), n);
        heldLength += n;
        return true;
    }

    /** Decodes the held block (its frames all here); false for a COMPRESSION_ERROR. */
    boolean decodeHeld(boolean trailers) {
        return decode(held, 0, heldLength, trailers);
    }

    /** Decodes {@code [from, to)} of {@code src} into {@link #fields}; false for a COMPRESSION_ERROR. */
    boolean decode(ByteBuffer src, int from, int to, boolean trailers) {
        stream = 0;
        fields.begin(trailers);
        int bound = decoder.destinationBound(to - from, 0);
        if (decoded.capacity() < bound) {
            decoded = ByteBuffer.allocate(bound);
        }
        return decoder.decode(src, from, to, decoded, 0, bound, fields) >= 0;
    }

    /** Whether the last block's fields passed SETTINGS_MAX_HEADER_LIST_SIZE (our {@code maxHeadSize}). */
    boolean tooLarge() {
        return decoder.tooLarge();
    }
}
