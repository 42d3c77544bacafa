package dev.peregrine.h2;

import dev.peregrine.buffer.BufferPool;
import dev.peregrine.h2.frame.FrameParser;
import dev.peregrine.h2.frame.FrameWriter;
import dev.peregrine.h2.hpack.HpackDecoder;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

import static dev.peregrine.h2.frame.Frames.*;

/**
 * The HTTP/2 server (RFC 9113) as a {@link Protocol}: one per connection, a state machine over
 * frames. Reached by prior knowledge (the preface on the plain port), ALPN {@code h2} on TLS, or
 * {@code Upgrade: h2c} ({@link Http2Upgrade}).
 *
 * <p><b>Connection states</b>:
 * <pre>
 *   (opened: our SETTINGS (+ WINDOW_UPDATE on 0) sent; after an h2c upgrade stream 1 holds its request)
 *   PREFACE --24 preface bytes--&gt; FRAMES (an upgrade's stream 1 is dispatched after that read's frames)
 *   PREFACE --anything else--&gt; GOAWAY PROTOCOL_ERROR, close (§3.4)
 *   FRAMES: each whole frame in turn (FrameParser checks what needs no state, this class the rest):
 *     HEADERS (+ CONTINUATION until END_HEADERS: any other frame meanwhile is PROTOCOL_ERROR, §6.10)
 *         --&gt; the block is HPACK-decoded, checked (RequestHeaders), then the stream opens or, with
 *             END_STREAM, is dispatched at once (Http2Responder; off the loop: answered later, PendingStream);
 *             a content-length above streamBodyThreshold, or none, is routed now (dispatchStreamed): a blocking
 *             or streaming route takes its body in pieces (Http2Stream.body)
 *     DATA --&gt; the stream's body, gathered (END_STREAM dispatches it) or offered to its StreamBody
 *     SETTINGS --&gt; applied, ACKed;  PING --&gt; answered;  WINDOW_UPDATE --&gt; windows, held DATA goes on
 *     RST_STREAM --&gt; the stream is forgotten;  PRIORITY --&gt; ignored (§5.3.2) but for self-dependency
 *     PUSH_PROMISE --&gt; PROTOCOL_ERROR;  unknown types --&gt; ignored (§5.5)
 *   FRAMES --connection error--&gt; GOAWAY(last stream id, code), close once written (§5.4.1)
 *   FRAMES --server shutdown--&gt; GOAWAY(last stream id, NO_ERROR); closes when no stream is left
 * </pre>
 * <b>Flow control</b> (§5.2, §6.9): we advertise {@link Http2Settings#initialStreamWindow} and raise
 * the connection window to {@link Http2Settings#connectionWindow} at start; a WINDOW_UPDATE gives back
 * what was received once half a window is used, so a client sending fast never waits on us; but a
 * stream whose body goes to its handler in pieces gets its window back only as the handler consumes
 * ({@link BodyFeed}): its held bytes never exceed the window we advertised, and since the
 * connection window is given back on arrival, a slow handler never starves the other streams. Our
 * output respects the peer's connection and stream windows; DATA that does not fit waits in the
 * stream ({@link Http2Responder}) for the peer's WINDOW_UPDATE, for at most
 * {@link Http2Settings#stalledWriteMillis} (the STALLED timer phase).
 *
 * <p><b>Output</b>: every frame goes into the connection's batch, so the responses of all the streams
 * a read completed leave in one write.
 *
 * <p>Thread: the connection's loop thread.
 */
public final class Http2Connection implements Protocol {
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    static final int T_IDLE = 1;
    static final int T_ACTIVE = 2;
    static final int T_STALLED = 3;

    // flags: the client's preface is in; an error or the idle close ended the connection (nothing more is
    // read); GOAWAY sent or received (no new stream, closes once none is open).
    private static final int PREFACE_READ = 1, DEAD = 2, GOING_AWAY = 4;

    /** The server's limits, and how the connection finds its loop's dispatch at open ({@link Http2Settings#dispatchOf}). */
    final Http2Settings settings;
    /** The loop's parser, lent for one {@link #onInput} (null between calls). */
    private FrameParser parser;
    /** The bytes the frame being read takes once its header is here ({@link FrameParser#needed}). */
    private int needed;
    final Streams streams;
    Http2Responder responder;
    /** The loop's shared HTTP/2 state; its {@link Http2Loop#dispatch} is the loop's server (not a field here: issue 28). */
    Http2Loop shared;
    Connection c;
    /** PREFACE_READ, DEAD and GOING_AWAY: one byte, not three booleans (issue 28, an idle connection's bytes). */
    private byte flags;
    int lastStreamId;

    /** The field block being assembled from HEADERS and CONTINUATION frames, lent by the loop; null when none is. */
    private HeaderBlock block;
    /** HPACK state (RFC 7541 §2.3.2): null while the dynamic table is empty (the loop keeps a spare). */
    private HpackDecoder decoder;

    /** What we may still send on the connection (the peer's window, 0 to 2^31-1: §6.9.1). */
    int sendWindow = DEFAULT_WINDOW;
    /**
     * The frames of the current flood window, counted by {@link FloodGuard} (each limit is at most
     * 65,535, so a {@code char} holds a count: issue 28), and the loop clock's low 32 bits when the window began.
     */
    char resets, serverResets, settingsFrames, pings, emptyFrames;
    int floodWindowStart;
    /** The peer's SETTINGS_INITIAL_WINDOW_SIZE and SETTINGS_MAX_FRAME_SIZE ({@link PeerSettings}). */
    int peerInitialWindow = DEFAULT_WINDOW;
    int peerMaxFrameSize = DEFAULT_MAX_FRAME_SIZE;
    /** The peer's SETTINGS_HEADER_TABLE_SIZE (high 16 bits) and its lowest since our last field block (low 16), {@link PeerSettings}. */
    int peerTableSizes = DEFAULT_HEADER_TABLE_SIZE << 16 | DEFAULT_HEADER_TABLE_SIZE;
    /** DATA received on the connection since our last WINDOW_UPDATE on 0: our window is connectionWindow less this. */
    private int recvUnacked;

    private Http2Upgrade upgrade; // h2c: stream 1 holds the upgraded request until the client's preface is in, or null
    /**
     * What the peer's HPACK decoder holds of our field blocks (RFC 7541 §2.3.2), kept by
     * {@link Http2Responder}: null until the response to the connection's second stream. A field here
     * rather than in the responder: it fits this object's padding (issue 28, an idle connection's bytes).
     */
    dev.peregrine.h2.hpack.HpackTable responseTable;

    /** The loop's buffer pool (not a field of its own: an idle connection's bytes). */
    BufferPool pool() {
        return c.context().pool();
    }

    /** A connection of {@code settings} whose loop's dispatch {@code dispatchOf} gives (a test's; {@link Http2Server} binds the two once). */
    public Http2Connection(Http2Settings settings, Function<LoopContext, StreamDispatch> dispatchOf) {
        this(settings.withDispatch(dispatchOf), (Http2Upgrade) null);
    }

    /** {@code settings} carry their {@link Http2Settings#dispatchOf} ({@link Http2Settings#withDispatch}). */
    Http2Connection(Http2Settings settings, Http2Upgrade upgrade) {
        this.settings = settings;
        this.streams = new Streams();
        this.upgrade = upgrade;
    }

    /** The loop's server: router, views, timeouts. */
    StreamDispatch dispatch() {
        return shared.dispatch;
    }

    private boolean is(int flag) {
        return (flags & flag) != 0;
    }

    private void set(int flag) {
        flags |= (byte) flag;
    }

    @Override
    public void onOpen(Connection c) {
        this.c = c;
        this.shared = settings.dispatchOf.apply(c.context()).loop();
        this.responder = new Http2Responder(this);
        shared.counters.connections++;
        FloodGuard.start(this, now());
        // §3.4: the server's preface is a SETTINGS frame, sent first whatever the client's timing.
        FrameWriter.settings(c, SETTINGS_MAX_CONCURRENT_STREAMS, settings.maxConcurrentStreams,
                SETTINGS_INITIAL_WINDOW_SIZE, settings.initialStreamWindow,
                SETTINGS_HEADER_TABLE_SIZE, settings.headerTableSize,
                SETTINGS_MAX_HEADER_LIST_SIZE, settings.maxHeaderListSize,
                SETTINGS_ENABLE_PUSH, 0);
        if (settings.connectionWindow > DEFAULT_WINDOW) {
            FrameWriter.windowUpdate(c, 0, settings.connectionWindow - DEFAULT_WINDOW);
        }
        if (upgrade != null) {
            upgrade.start(this);
        }
    }

    // ---------------------------------------------------------------- input

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        int pos = start;
        if (!is(PREFACE_READ)) {
            int n = Math.min(end - pos, PREFACE.length);
            for (int i = 0; i < n; i++) {
                if (buf.get(pos + i) != PREFACE[i]) {
                    connectionError(PROTOCOL_ERROR); // §3.4
                    return end;
                }
            }
            if (n < PREFACE.length) {
                return pos;
            }
            set(PREFACE_READ);
            pos += PREFACE.length;
        }
        parser = shared.parser(); // the loop's for this call (should this throw, the loop makes another)
        pos = frames(buf, pos, end);
        shared.give(parser);
        parser = null;
        if (pos < 0) {
            return end;
        }
        if (upgrade != null && is(PREFACE_READ) && !is(DEAD)) {
            upgrade.prefaceIn(this); // h2c: stream 1's request goes to its handler now (Http2Upgrade says why)
            upgrade = null;
        }
        responder.flushBlocked();
        return is(DEAD) ? end : pos;
    }

    /** Each whole frame in {@code [pos, end)}; returns where the first one not all here begins, or -1 after a connection error. */
    private int frames(ByteBuffer buf, int pos, int end) {
        while (!is(DEAD) && c.isOpen()) {
            int r = parser.parse(buf, pos, end);
            needed = parser.needed();
            if (r == FrameParser.NEED_MORE) {
                break;
            }
            if (r == FrameParser.ERROR) {
                if (parser.errorStream() == 0) {
                    connectionError(parser.errorCode());
                    return -1;
                }
                if (block != null) {
                    connectionError(PROTOCOL_ERROR); // §6.10: nothing may come between a block's frames
                    return -1;
                }
                streamError(parser.errorStream(), parser.errorCode());
                pos = parser.frameEnd();
                continue;
            }
            frame(buf);
            pos = r;
        }
        return pos;
    }

    @Override
    public int expectedInput() {
        return needed;
    }

    private void frame(ByteBuffer b) {
        int type = parser.type();
        int id = parser.streamId();
        if (block != null && (type != CONTINUATION || id != block.stream)) {
            connectionError(PROTOCOL_ERROR); // §6.10
            return;
        }
        switch (type) {
            case DATA:
                data(b, id);
                break;
            case HEADERS:
                headers(b, id);
                break;
            case PRIORITY:
                if (parser.dependency() == id) {
                    streamError(id, PROTOCOL_ERROR); // RFC 7540 §5.3.1: a stream cannot depend on itself
                }
                break;
            case RST_STREAM:
                rstStream(id);
                break;
            case SETTINGS:
                PeerSettings.frame(this, parser, b);
                break;
            case PUSH_PROMISE:
                connectionError(PROTOCOL_ERROR); // §8.4: clients cannot push
                break;
            case PING:
                if (!parser.flag(FLAG_ACK)) {
                    if (FloodGuard.note(FloodGuard.PING, this)) {
                        connectionError(ENHANCE_YOUR_CALM);
                        return;
                    }
                    FrameWriter.ping(c, true, (long) FrameParser.int32(b, parser.payloadStart()) << 32
                            | (FrameParser.int32(b, parser.payloadStart() + 4) & 0xffff_ffffL));
                }
                break;
            case GOAWAY:
                set(GOING_AWAY); // the peer opens nothing more; we finish what is open
                if (streams.count() == 0) {
                    c.closeAfterOutput();
                }
                break;
            case WINDOW_UPDATE:
                PeerSettings.windowUpdate(this, parser, b, id);
                break;
            case CONTINUATION:
                continuation(b, id);
                break;
            default:
                break; // §5.5
        }
    }

    private void headers(ByteBuffer b, int id) {
        if ((id & 1) == 0) {
            connectionError(PROTOCOL_ERROR); // §5.1.1: clients use odd ids
            return;
        }
        Http2Stream s = streams.get(id);
        int error = 0;
        if (s != null) {
            if (s.state != Http2Stream.OPEN) {
                error = STREAM_CLOSED; // §5.1: half-closed (remote)
            } else if (!parser.flag(FLAG_END_STREAM)) {
                error = PROTOCOL_ERROR; // §8.1: trailers end the stream
            }
        } else if (id <= lastStreamId && streams.resetByUs(id)) {
            error = HeaderBlock.IGNORED; // trailers already on their way when we answered and reset it (§5.1)
        } else if (id <= lastStreamId) {
            connectionError(streams.recentlyClosed(id) ? STREAM_CLOSED : PROTOCOL_ERROR); // §5.1, §5.1.1
            return;
        } else {
            lastStreamId = id;
            if (parser.hasPriority() && parser.dependency() == id) {
                error = PROTOCOL_ERROR; // RFC 7540 §5.3.1
            } else if (is(GOING_AWAY)) {
                error = REFUSED_STREAM;
            } else if (streams.count() >= settings.maxConcurrentStreams) {
                shared.counters.refusedStreams++;
                error = REFUSED_STREAM; // §5.1.2
            }
        }
        block = shared.block();
        block.begin(id, parser.flag(FLAG_END_STREAM), error);
        appendBlock(b);
    }

    private void continuation(ByteBuffer b, int id) {
        if (block == null) {
            // §6.10: a CONTINUATION not after HEADERS or CONTINUATION without END_HEADERS
            connectionError(PROTOCOL_ERROR);
            return;
        }
        if (parser.dataEnd() == parser.dataStart() && !parser.flag(FLAG_END_HEADERS) && FloodGuard.note(FloodGuard.EMPTY, this)) {
            connectionError(ENHANCE_YOUR_CALM);
            return;
        }
        appendBlock(b);
    }

    private void appendBlock(ByteBuffer b) {
        int r = block.append(parser, b, pool(), settings);
        if (r == HeaderBlock.FLOOD) {
            shared.counters.continuationFloods++;
            connectionError(ENHANCE_YOUR_CALM); // CONTINUATION flood
        } else if (r == HeaderBlock.WHOLE) {
            endBlock();
        }
    }

    /** A whole field block is here: decode it (always, to keep HPACK in step), give back what the loop lent, act on it. */
    private void endBlock() {
        HeaderBlock b = block;
        block = null;
        int id = b.stream;
        Http2Stream s = streams.get(id);
        boolean trailers = s != null || b.error == HeaderBlock.IGNORED;
        HpackDecoder d = decoder != null ? decoder : shared.decoder(settings);
        int end = b.decode(d, shared, trailers, dev.peregrine.http1.RequestFields.capacity(dispatch().request()), pool());
        ByteBuffer dst = b.decoded;
        RequestHeaders fields = b.fields;
        int error = b.error;
        boolean endStream = b.endStream;
        boolean tooLarge = d.tooLarge();
        shared.give(b);
        decoder = shared.giveIfPristine(d) ? null : d;
        if (end < 0) {
            connectionError(COMPRESSION_ERROR); // §4.3
            return;
        }
        if (error == HeaderBlock.IGNORED) {
            return; // decoded, so HPACK stays in step, and dropped
        }
        if (error != 0) {
            streamError(id, error);
            return;
        }
        if (!fields.complete()) {
            streamError(id, PROTOCOL_ERROR); // §8.1.1: malformed
            return;
        }
        if (trailers) {
            BodyFeed.trailers(this, s, dst, end, tooLarge); // END_STREAM was checked in headers(); any count, as HTTP/1.1's
            return;
        }
        shared.counters.streams++;
        s = streams.open(this, id, peerInitialWindow, settings.initialStreamWindow);
        s.declaredLength = fields.contentLength;
        if (tooLarge || fields.tooMany) {
            shared.counters.headerListTooLarge++;
            responder.earlyAnswer(s, 431);
            return;
        }
        if (fields.connect) {
            responder.earlyAnswer(s, 501);
            return;
        }
        if (endStream) {
            s.state = Http2Stream.HALF_CLOSED_REMOTE;
            if (s.declaredLength > 0) {
                streamError(id, PROTOCOL_ERROR); // §8.1.1: content-length and the DATA sent differ
                return;
            }
            responder.dispatch(s, dst, 0, end, 0);
            return;
        }
        if ((s.declaredLength > dispatch().streamBodyThreshold() || s.declaredLength < 0)
                && responder.dispatchStreamed(s, dst, 0, end) != StreamDispatch.NOT_STREAMED) {
            return; // routed at its HEADERS, as HTTP/1.1 routes a large or chunked body at its head: in pieces, or answered
        }
        // The body is to come: keep the fields with the stream, the body after them.
        long expected = s.declaredLength >= 0 ? Math.min(s.declaredLength, dispatch().maxBodySize()) : 4096;
        s.request = pool().acquire((int) Math.min(end + expected, pool().maxBufferSize()));
        s.request.put(0, dst, 0, end);
        s.headEnd = end;
    }

    private void data(ByteBuffer b, int id) {
        int length = parser.length();
        if (length > settings.connectionWindow - recvUnacked) {
            connectionError(FLOW_CONTROL_ERROR); // §6.9.1
            return;
        }
        recvUnacked += length;
        if (recvUnacked >= settings.connectionWindow / 2) {
            FrameWriter.windowUpdate(c, 0, recvUnacked);
            recvUnacked = 0;
        }
        Http2Stream s = streams.get(id);
        if (s == null) {
            if (id > lastStreamId) {
                connectionError(PROTOCOL_ERROR); // §5.1: DATA on an idle stream
            } else if (!streams.resetByUs(id)) { // DATA already sent when we answered and reset it: ignored (§5.1)
                streamError(id, STREAM_CLOSED); // §5.1: closed
            }
            return;
        }
        if (s.state != Http2Stream.OPEN) {
            streamError(id, STREAM_CLOSED); // §5.1: half-closed (remote)
            return;
        }
        if (length > s.recvWindow) {
            streamError(id, FLOW_CONTROL_ERROR);
            return;
        }
        s.recvWindow -= length;
        boolean end = parser.flag(FLAG_END_STREAM);
        int n = parser.dataEnd() - parser.dataStart();
        if (n == 0 && !end && FloodGuard.note(FloodGuard.EMPTY, this)) {
            connectionError(ENHANCE_YOUR_CALM); // CVE-2019-9518
            return;
        }
        BodyFeed.data(this, s, b, parser.dataStart(), length, n, end);
    }

    private void rstStream(int id) {
        if (id > lastStreamId) {
            connectionError(PROTOCOL_ERROR); // §6.4: RST_STREAM on an idle stream
            return;
        }
        if (FloodGuard.note(FloodGuard.RESET, this)) {
            connectionError(ENHANCE_YOUR_CALM); // rapid reset (CVE-2023-44487)
            return;
        }
        Http2Stream s = streams.get(id);
        if (s != null) {
            closeStream(s);
        }
    }

    /** Applies one of the peer's settings ({@link PeerSettings}); false after a connection error. */
    boolean applySetting(int id, int value) {
        int error = PeerSettings.apply(this, id, value);
        if (error != 0) {
            connectionError(error);
            return false;
        }
        return true;
    }

    // ---------------------------------------------------------------- errors and closing

    /** §5.4.2: RST_STREAM and forget the stream; counts towards the MadeYouReset limit. */
    void streamError(int id, int code) {
        shared.counters.streamErrors++;
        FrameWriter.rstStream(c, id, code);
        Http2Stream s = streams.get(id);
        if (s != null) {
            closeStream(s);
        } else {
            streams.noteClosed(id);
        }
        if (FloodGuard.note(FloodGuard.SERVER_RESET, this)) {
            connectionError(ENHANCE_YOUR_CALM); // MadeYouReset (CVE-2025-8671)
        }
    }

    /** §5.4.1: GOAWAY with the last stream we opened, then close once it is written. */
    void connectionError(int code) {
        if (is(DEAD)) {
            return;
        }
        set(DEAD);
        shared.counters.connectionErrors++;
        dropBlock();
        FrameWriter.goAway(c, lastStreamId, code);
        c.closeAfterOutput();
    }

    void closeStream(Http2Stream s) {
        s.release(pool());
        streams.close(this, s);
        if (is(GOING_AWAY) && streams.count() == 0 && c.isOpen()) {
            c.closeAfterOutput();
        }
    }

    long now() {
        return c.context().nowMillis();
    }

    /** A file or producer in DATA waits for the socket to drain ({@link #onOutputReady}); not once the connection failed. */
    @Override
    public boolean producing() {
        return !is(DEAD) && responder.sendingBody();
    }

    @Override
    public void onOutputReady(Connection c) {
        responder.flushBlocked();
        c.flush();
    }

    @Override
    public void onInputOverflow(Connection c) {
        connectionError(FRAME_SIZE_ERROR);
    }

    @Override
    public void onEndOfInput(Connection c) {
        c.closeOnceWritten();
    }

    @Override
    public int timerPhase() {
        if (responder.stalled()) {
            return T_STALLED;
        }
        // Streams whose handlers run off the loop (awaiting) are bounded by their exchanges' own timeouts.
        return !is(PREFACE_READ) || streams.anyNotAwaiting() ? T_ACTIVE : streams.count() == 0 ? T_IDLE : 0;
    }

    @Override
    public long timeoutMillis(int phase) {
        return phase == T_STALLED ? settings.stalledWriteMillis
                : phase == T_ACTIVE ? dispatch().bodyTimeoutMillis() : dispatch().idleTimeoutMillis();
    }

    @Override
    public boolean progressRestarts(int phase) {
        return phase != T_STALLED; // a peer that reads nothing does not buy time with other frames
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        if (phase == T_STALLED) {
            shared.counters.stalledWrites++;
        }
        if (phase != T_IDLE) {
            connectionError(phase == T_STALLED ? ENHANCE_YOUR_CALM : NO_ERROR);
        } else {
            set(DEAD); // idle: a graceful close, not counted as an error
            FrameWriter.goAway(c, lastStreamId, NO_ERROR);
            c.closeAfterOutput();
        }
        c.flush();
    }

    /** Graceful shutdown (§6.8): GOAWAY with the last stream id; open streams may finish. */
    @Override
    public void onShutdown(Connection c) {
        if (is(GOING_AWAY) && is(DEAD)) {
            return;
        }
        set(GOING_AWAY);
        FrameWriter.goAway(c, lastStreamId, NO_ERROR);
        if (streams.count() == 0) {
            set(DEAD);
            c.closeAfterOutput();
        }
        c.flush();
    }

    @Override
    public void onClosed(Connection c) {
        dropBlock();
        streams.closeAll(this);
    }

    /** A block still being assembled goes back (its buffer to the pool, itself to the loop). */
    private void dropBlock() {
        if (block != null) {
            block.release(pool());
            shared.give(block);
            block = null;
        }
    }
}
