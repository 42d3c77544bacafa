package dev.peregrine.h2;

import dev.peregrine.h2.hpack.HpackDecoder;
import dev.peregrine.h2.hpack.HpackEncoder;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The HTTP/2 state one loop's connections share, since a loop runs one of them at a time: the
 * buffer a field block is decoded into (and what the last block was, to skip decoding it again), the
 * response encoder (its table is each connection's),
 * the array a body is staged in, the direct buffer a file's next DATA frame is read into, the checker
 * of decoded request fields, the spare streams ({@link SpareStreams}) and the counters. Made once per
 * loop, at its first HTTP/2 connection. Thread: the loop thread.
 */
public final class Http2Loop {
    final HpackEncoder encoder = new HpackEncoder();
    final Http2Counters counters = new Http2Counters();
    /** Checks the fields of the block a connection has just decoded (HeaderBlock#decode). */
    final RequestHeaders requestHeaders = new RequestHeaders();
    /** Closed streams and emptied stream arrays, lent to the loop's connections (Streams). */
    final SpareStreams spareStreams = new SpareStreams();
    private ByteBuffer decoded = ByteBuffer.allocateDirect(32 * 1024).order(ByteOrder.LITTLE_ENDIAN);

    /**
     * The last field block decoded on this loop, when it was indexed fields only (RFC 7541 §6.1: one byte
     * each, so it left its decoder's table as it was) and decoded well: its decoder (one connection's for
     * its life), its bytes, and where its fields ended in {@link #decoded}. Until the next block is
     * decoded here, {@link #decoded} and {@link #requestHeaders} still hold its fields and their checks,
     * so the same bytes from the same decoder decode to exactly that again ({@link HeaderBlock#decode}):
     * h2load's and browsers' repeated requests on a connection cost no HPACK work after the first.
     */
    HpackDecoder repeatDecoder;
    final byte[] repeatBytes = new byte[REPEAT_MAX];
    int repeatLength;
    int repeatEnd;
    boolean repeatTrailers;
    int repeatMaxFields;
    /** The longest block {@link #repeatDecoder} remembers. */
    static final int REPEAT_MAX = 64;
    private byte[] body = new byte[16 * 1024];
    /** A file's next DATA frame is read into this. */
    private final ByteBuffer file = ByteBuffer.allocateDirect(Http2Responder.FILE_FRAME);

    public Http2Counters counters() {
        return counters;
    }

    /** A buffer of at least {@code bytes} to decode a field block into. */
    ByteBuffer decoded(int bytes) {
        if (decoded.capacity() < bytes) {
            decoded = ByteBuffer.allocateDirect(Math.max(bytes, decoded.capacity() * 2)).order(ByteOrder.LITTLE_ENDIAN);
        }
        return decoded;
    }

    /** The buffer a file's next frame is read into, cleared, its limit {@code bytes} (at most {@link Http2Responder#FILE_FRAME}). */
    ByteBuffer file(int bytes) {
        file.clear().limit(bytes);
        return file;
    }

    /** An array of at least {@code bytes} to stage a response body in. */
    byte[] body(int bytes) {
        if (body.length < bytes) {
            body = new byte[Math.max(bytes, body.length * 2)];
        }
        return body;
    }
}
