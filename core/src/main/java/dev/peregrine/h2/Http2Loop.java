package dev.peregrine.h2;

import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.hpack.HpackDecoder;
import dev.peregrine.h2.hpack.HpackEncoder;
import dev.peregrine.h2.hpack.HpackTable;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The HTTP/2 state one loop's connections share, since a loop runs one of them at a time: the
 * buffer a field block is decoded into (and what the last block was, to skip decoding it again), the
 * response encoder (its table is each connection's),
 * the response block encoded last ({@link ResponseRepeat}), the array a body is staged in, the direct buffer a file's next DATA frame is read into, the checker
 * of decoded request fields, the spare streams ({@link SpareStreams}) and the counters. Made once per
 * loop, at its first HTTP/2 connection.
 *
 * <p><b>Lent per call</b> (issue 28: an idle connection holds none of them): the frame parser (for one
 * {@code onInput}), a field block being assembled (HEADERS to END_HEADERS) and an HPACK decoder whose
 * dynamic table is empty. One spare of each is kept; a connection that asks while the spare is out
 * (a nested call) gets a new one, which the GC takes back if the slot is taken when it returns.
 *
 * <p>Thread: the loop thread.
 */
public final class Http2Loop {
    /** The loop's server (router, views, timeouts), whose {@link StreamDispatch#loop} this is. */
    final StreamDispatch dispatch;
    final HpackEncoder encoder = new HpackEncoder();
    /** The response block encoded last, sent again as it is while it stays right ({@link ResponseRepeat}). */
    final ResponseRepeat repeat = new ResponseRepeat();
    final Http2Counters counters = new Http2Counters();
    /** Checks the fields of the block a connection has just decoded (HeaderBlock#decode). */
    final RequestHeaders requestHeaders = new RequestHeaders();
    /** Closed streams and emptied stream arrays, lent to the loop's connections (Streams). */
    final SpareStreams spareStreams = new SpareStreams();
    private ByteBuffer decoded = ByteBuffer.allocateDirect(32 * 1024).order(ByteOrder.LITTLE_ENDIAN);

    /**
     * The last field block decoded on this loop, when decoding it left its decoder's table as it was
     * (indexed fields and literals without indexing, RFC 7541 §6.1-6.2.3) and it decoded well: its
     * decoder (one connection's for its life), the table's version then ({@link HpackTable#version()}),
     * its bytes, and where its fields ended in {@link #decoded}. Until the next block is
     * decoded here, {@link #decoded} and {@link #requestHeaders} still hold its fields and their checks,
     * so the same bytes from the same decoder decode to exactly that again ({@link HeaderBlock#decode}):
     * h2load's and browsers' repeated requests on a connection cost no HPACK work after the first.
     */
    HpackDecoder repeatDecoder;
    int repeatVersion;
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

    /** Scratch for a response's content-length digits (Http2Responder). */
    final byte[] digits = new byte[20];
    private FrameParser spareParser;
    private HeaderBlock spareBlock;
    private HpackDecoder spareDecoder;

    public Http2Loop(StreamDispatch dispatch) {
        this.dispatch = dispatch;
    }

    public Http2Counters counters() {
        return counters;
    }

    /** A frame parser for one {@code onInput}: its state does not outlive the call (give it back). */
    FrameParser parser() {
        FrameParser p = spareParser;
        if (p == null) {
            return new FrameParser();
        }
        spareParser = null;
        return p;
    }

    void give(FrameParser p) {
        spareParser = p;
    }

    /** An empty field block, held by a connection from a HEADERS frame until its block is decoded. */
    HeaderBlock block() {
        HeaderBlock b = spareBlock;
        if (b == null) {
            return new HeaderBlock();
        }
        spareBlock = null;
        return b;
    }

    /** Takes back a block released ({@link HeaderBlock#release}: it holds no buffer). */
    void give(HeaderBlock b) {
        spareBlock = b;
    }

    /** A decoder with an empty dynamic table of the maximum size (as a new connection's). */
    HpackDecoder decoder(Http2Settings settings) {
        HpackDecoder d = spareDecoder;
        if (d == null) {
            return new HpackDecoder(settings.headerTableSize, settings.maxHeaderListSize);
        }
        spareDecoder = null;
        return d;
    }

    /**
     * Takes {@code d} back when its table is as a new one's (no entry, the maximum size): then it holds
     * no state of its connection's, whose next block can use any such decoder. Returns whether it did.
     */
    boolean giveIfPristine(HpackDecoder d) {
        HpackTable t = d.table();
        if (t.dynamicCount() != 0 || t.maxSize() != t.capacity()) {
            return false;
        }
        spareDecoder = d;
        return true;
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
