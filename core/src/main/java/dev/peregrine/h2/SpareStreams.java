package dev.peregrine.h2;

/**
 * The closed {@link Http2Stream} objects and the emptied arrays of open streams of one loop's
 * connections, kept for the next stream any of them opens: an idle connection then holds neither
 * (see {@link Streams}), and a request still allocates nothing once the loop is warm. At most
 * {@link #MAX_STREAMS} streams and {@link #MAX_ARRAYS} arrays are kept; what a burst leaves beyond
 * that goes to the GC. Thread: the loop thread.
 */
final class SpareStreams {
    static final int MAX_STREAMS = 256;
    static final int MAX_ARRAYS = 64;

    private Http2Stream[] streams = new Http2Stream[16];
    private int streamCount;
    private Http2Stream[][] arrays = new Http2Stream[8][];
    private int arrayCount;

    /** A stream to reset and open: a spare one, or a new one. */
    Http2Stream stream() {
        if (streamCount == 0) {
            return new Http2Stream();
        }
        Http2Stream s = streams[--streamCount];
        streams[streamCount] = null;
        return s;
    }

    /** Keeps a closed stream (already released) for {@link #stream()}. */
    void give(Http2Stream s) {
        if (streamCount == streams.length) {
            if (streamCount == MAX_STREAMS) {
                return;
            }
            streams = java.util.Arrays.copyOf(streams, streamCount * 2);
        }
        streams[streamCount++] = s;
    }

    /** An empty array of open streams, of at least {@code length} when a new one must be made. */
    Http2Stream[] array(int length) {
        if (arrayCount == 0) {
            return new Http2Stream[length];
        }
        Http2Stream[] a = arrays[--arrayCount];
        arrays[arrayCount] = null;
        return a;
    }

    /** Keeps an emptied array (all its slots null) for {@link #array(int)}. */
    void give(Http2Stream[] a) {
        if (arrayCount == arrays.length) {
            if (arrayCount == MAX_ARRAYS) {
                return;
            }
            arrays = java.util.Arrays.copyOf(arrays, arrayCount * 2);
        }
        arrays[arrayCount++] = a;
    }
}
