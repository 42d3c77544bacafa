package dev.peregrine.teleport;

import dev.peregrine.buffer.OutputSink;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

import java.nio.ByteBuffer;

/**
 * LZ4 over one direction of a teleport connection ({@link StreamCodec}, docs/teleport.md): each batch
 * is one LZ4 block (more only past {@link #MAX_BLOCK} or the receiver's max frame), preceded by its
 * compressed and uncompressed lengths. Blocks are a byte stream: a frame may span two.
 * <pre>
 *   0               4                 8
 *   +---------------+-----------------+----------------------------------+
 *   | compressed u32| uncompressed u32| LZ4 block (compressed bytes)     |
 *   +---------------+-----------------+----------------------------------+
 *   big-endian; 1 &lt;= uncompressed &lt;= the reader's max frame;
 *   1 &lt;= compressed &lt;= LZ4's bound for uncompressed (n + n/255 + 16)
 * </pre>
 * A block whose lengths are out of range, that does not decode, or decodes to another length is a
 * corrupt stream: the connection closes. A block is decoded only once whole and with its stated
 * length as the limit (the safe decompressor: it never writes past it nor reads past the block), so
 * what one block can make the reader hold is its max frame.
 *
 * <p>The library is {@code at.yawk.lz4:lz4-java} (the maintained fork; {@code org.lz4} is
 * discontinued), through {@link Lz4Library}: its JNI code on direct buffers (the plain buffers here
 * and the loops' are), in place, or its safe pure-Java instance where the native code does not load.
 *
 * <p>Thread: the connection's loop.
 */
final class Lz4Stream extends StreamCodec {
    /** Header bytes before each block. */
    static final int BLOCK_HEADER = 8;
    /** The largest block this side writes (uncompressed), whatever the receiver takes. */
    static final int MAX_BLOCK = 1 << 20;

    private final LZ4Compressor compressor;
    private final LZ4SafeDecompressor decompressor;
    /** Reading: the largest uncompressed block accepted (this side's max frame). Writing: the largest written. */
    private final int maxBlock;
    /** Reading: the bytes of the block waiting for the rest of it (header included), else 0. */
    private int expected;
    /** Writing: where a block too large for the connection's buffer is compressed first; made when needed. */
    private ByteBuffer scratch;

    /**
     * @param reading whether the peer writes lz4; @param writing whether this side does;
     * @param maxFrame reading: this side's max frame (the cap per block); writing: the peer's
     */
    Lz4Stream(boolean reading, boolean writing, int maxFrame) {
        super(reading, writing, true);
        LZ4Factory f = Lz4Library.factory();
        this.compressor = writing ? f.fastCompressor() : null;
        this.decompressor = reading ? f.safeDecompressor() : null;
        this.maxBlock = writing ? Math.min(maxFrame, MAX_BLOCK) : maxFrame;
    }

    @Override
    String name() {
        return "lz4";
    }

    /** Decodes the one block at {@code from} if it is whole: its bytes with header, 0 if not whole, -1 if corrupt. */
    @Override
    int decode(ByteBuffer b, int from, int to, int room) {
        expected = 0;
        if (to - from < BLOCK_HEADER) {
            expected = BLOCK_HEADER;
            return 0;
        }
        long compressed = Frame.getInt(b, from) & 0xFFFF_FFFFL;
        long plain = Frame.getInt(b, from + 4) & 0xFFFF_FFFFL;
        if (plain < 1 || plain > maxBlock || compressed < 1 || compressed > maxCompressed((int) plain)) {
            return -1;
        }
        int whole = BLOCK_HEADER + (int) compressed;
        if (to - from < whole) {
            expected = whole;
            return 0;
        }
        ensure((int) plain);
        ByteBuffer in = in();
        int at = in.position();
        int n;
        try {
            n = decompressor.decompress(b, from + BLOCK_HEADER, (int) compressed, in, at, (int) plain);
        } catch (LZ4Exception | IndexOutOfBoundsException e) {
            return -1;
        }
        if (n != plain) {
            return -1;
        }
        in.position(at + n);
        return whole;
    }

    @Override
    int expectedInput() {
        return expected;
    }

    private static long maxCompressed(int plain) {
        return plain + plain / 255L + 16; // LZ4_COMPRESSBOUND
    }

    /** One block per batch (per {@link #maxBlock} of it), each behind its two lengths, into {@code to}. */
    @Override
    void flush(OutputSink to) {
        ByteBuffer plain = plainOut();
        int length = plain.position();
        for (int off = 0; off < length; ) {
            int n = Math.min(maxBlock, length - off);
            int bound = compressor.maxCompressedLength(n);
            ByteBuffer out = to.out();
            if (out.remaining() < BLOCK_HEADER + bound) {
                to.drain();
                out = to.out();
            }
            if (out.remaining() >= BLOCK_HEADER + bound) { // in place, into the connection's batch
                int at = out.position();
                int c = compressor.compress(plain, off, n, out, at + BLOCK_HEADER, bound);
                Frame.putInt(out, at, c);
                Frame.putInt(out, at + 4, n);
                out.position(at + BLOCK_HEADER + c);
            } else { // larger than the connection's whole buffer: through the scratch buffer
                if (scratch == null || scratch.capacity() < BLOCK_HEADER + bound) {
                    scratch = ByteBuffer.allocateDirect(BLOCK_HEADER + compressor.maxCompressedLength(maxBlock));
                }
                int c = compressor.compress(plain, off, n, scratch, BLOCK_HEADER, bound);
                Frame.putInt(scratch, 0, c);
                Frame.putInt(scratch, 4, n);
                FrameSink.copy(scratch, BLOCK_HEADER + c, to);
            }
            off += n;
        }
        plain.clear();
    }

    @Override
    void end() {
        // the library's compressors hold no native state
    }
}
