package dev.peregrine.exchange;

/**
 * A body made of several ranges of one file, each after a small head held in memory, and a closing
 * piece: what {@code multipart/byteranges} (RFC 9110 §14.6) needs, sent without reading the ranges
 * into memory ({@link ResponseView#sendFileParts}). The sender writes, in order:
 * <pre>
 *   head[0] file[offset[0], +length[0]) head[1] file[offset[1], +length[1]) ... head[n-1] file[...] head[n]
 * </pre>
 * {@code heads} has one entry more than there are ranges: the last is the closing piece (for multipart,
 * the close delimiter). The heads are the caller's bytes, kept by reference and never changed.
 *
 * <p>Thread: immutable after construction; any.
 */
public final class FileParts {
    private final byte[][] heads;
    private final long[] offsets;
    private final long[] lengths;
    private final long total;

    /**
     * @param heads  {@code offsets.length + 1} pieces: the head before each range, then the closing piece
     * @param offsets where each range begins in the file
     * @param lengths each range's length in bytes
     * @throws IllegalArgumentException when the arrays do not fit together or a range is negative
     */
    public FileParts(byte[][] heads, long[] offsets, long[] lengths) {
        if (offsets.length != lengths.length || heads.length != offsets.length + 1) {
            throw new IllegalArgumentException("need one head per range and a closing piece");
        }
        long t = 0;
        for (int i = 0; i < offsets.length; i++) {
            if (offsets[i] < 0 || lengths[i] < 0) {
                throw new IllegalArgumentException("negative range " + offsets[i] + "+" + lengths[i]);
            }
            t += heads[i].length + lengths[i];
        }
        this.heads = heads;
        this.offsets = offsets;
        this.lengths = lengths;
        this.total = t + heads[offsets.length].length;
    }

    /** How many ranges of the file the body carries. */
    public int ranges() {
        return offsets.length;
    }

    /** The piece written before range {@code i}, or the closing piece for {@code i == ranges()}. */
    public byte[] head(int i) {
        return heads[i];
    }

    public long offset(int i) {
        return offsets[i];
    }

    public long length(int i) {
        return lengths[i];
    }

    /** The body's length in bytes: every head, every range and the closing piece. */
    public long total() {
        return total;
    }

    /** Whether every range lies inside a file of {@code size} bytes. */
    boolean inside(long size) {
        for (int i = 0; i < offsets.length; i++) {
            if (offsets[i] + lengths[i] > size) {
                return false;
            }
        }
        return true;
    }
}
