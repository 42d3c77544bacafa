package dev.peregrine.teleport;

import dev.peregrine.Handler;
import dev.peregrine.buffer.OutputSink;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.Methods;
import dev.peregrine.http1.RequestFramer;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopMetrics;
import dev.peregrine.loop.Protocol;
import dev.peregrine.offloop.BlockingHandler;
import dev.peregrine.offloop.Exchange;
import dev.peregrine.offloop.InlineSite;
import dev.peregrine.offloop.OffLoopHost;
import dev.peregrine.server.ServerLoop;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The teleport server as a {@link Protocol} on a {@link Connection}: the handshake, then frames
 * ({@link Frame}), decoded first by the client's compression ({@link StreamCodec}); each REQUEST
 * payload is framed as exactly one HTTP/1.1 message by the HTTP server's own {@link RequestFramer},
 * routed and answered by the same handlers, and the response, encoded by the same encoder, leaves as
 * a RESPONSE frame with the request's id in the connection's {@link ServerBatch}.
 * <pre>
 *   HELLO --client hello accepted: 0x00 + server hello--&gt; FRAMES --GOAWAY sent (shutdown; limits: then no REQUEST taken)--&gt; closing
 *     |  bad hello: reason byte, close; none within 3 s: REASON_TIMEOUT, close
 *   FRAMES: REQUEST  -&gt; handler -&gt; RESPONSE (same id)
 *           PING     -&gt; PING ack (same id)         CANCEL -&gt; ignored (the answer still frees the id)
 *           GOAWAY   -&gt; close once written          RESPONSE, id 0, a duplicate id, oversized/unknown
 *                                                    frame, payload not exactly one message -&gt; close
 * </pre>
 * Handler kinds: an inline handler runs at once; its response, whole (after its interim responses, in
 * the same payload), goes into the batch. One that
 * answers with a file or a producer ({@code sendFile}, {@code stream}) has its body gathered whole
 * ({@link ResponseCapture}), up to the client's max frame. A blocking handler runs on the server's
 * blocking executor, and an inline handler's {@code res.async()} completes later: each such request
 * has a {@link TeleportExchange} of its own, many in flight at once, answered as each completes
 * (files, producers and the handler's output stream gathered whole too). A response above the
 * client's max frame is answered 500 (one WARNING). A request the parser refuses (400, 413, 431...)
 * is answered with that status in its RESPONSE frame and the connection goes on: the frame boundary
 * is intact. Request ids, the access log and the request-duration histograms apply as over HTTP/1.1;
 * a connection's request limit and age send GOAWAY ({@link ConnectionLimits}), after which REQUESTs
 * are not taken.
 *
 * <p>Thread: the owning loop thread only.
 */
final class TeleportServerProtocol implements Protocol, InlineSite {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.teleport");
    private static final int T_HANDSHAKE = 1;
    private static final int T_IDLE = 2;
    private static final int T_FRAME = 3;
    /** The status a request is recorded with when its connection closed before it was answered. */
    private static final int CLIENT_CLOSED = 499;

    private final TeleportLoop tl;
    private final ServerLoop srv;
    private Connection c;
    private ServerBatch batch;
    private boolean handshaken;
    /** The client's largest accepted payload: responses above it are answered 500 instead. */
    private int peerMaxFrame;
    /** The compression the client writes (decoded here), or null for none. */
    private StreamCodec rd;
    /** The compression this side writes (the client's), or null for none. */
    private StreamCodec wr;
    private int lastId;
    /** {@code maxRequestsPerConnection} and {@code maxConnectionAge}: when this connection says GOAWAY. */
    private final ConnectionLimits limits;
    /** GOAWAY sent for the limits: later REQUESTs are not taken (the client sends them on a new connection). */
    private boolean retiring;
    /** Requests answered off the loop or in pieces, by id, until their response leaves. */
    private final Map<Integer, TeleportExchange> exchanges = new HashMap<>();
    /** The request whose inline handler runs now: its id, its clock, and the host its {@code async()} took, if any. */
    private int runningId;
    private long runningSince;
    private int runningKey;
    private TeleportExchange asyncHost;
    /** The length of the frame held in part, for the lent buffer's size; 0 when none. */
    private int expected;

    TeleportServerProtocol(TeleportLoop tl) {
        this.tl = tl;
        this.srv = tl.http;
        this.limits = new ConnectionLimits(tl.config);
    }

    @Override
    public void onOpen(Connection c) {
        this.c = c;
        this.batch = new ServerBatch(c, tl);
    }

    /** The client's max frame: the largest response this side may send it. */
    int peerMaxFrame() {
        return peerMaxFrame;
    }

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        batch.beginInput();
        int r = input(buf, start, end);
        if (c.isOpen() || c.state() == Connection.State.CLOSING) {
            batch.endInput(); // the connection writes the batch as this turn ends
        } else {
            batch.clear();
        }
        return r;
    }

    private int input(ByteBuffer buf, int start, int end) {
        int pos = start;
        if (!handshaken) {
            int r = Handshake.check(buf, pos, end, TeleportCompression.values());
            if (r == Handshake.NEED_MORE) {
                return start;
            }
            if (r != Handshake.ACCEPTED) {
                refuse(r);
                return end;
            }
            Handshake.Hello hello = Handshake.read(buf, pos);
            peerMaxFrame = hello.maxFrame();
            handshaken = true;
            ByteBuffer out = c.out();
            if (out.remaining() < 1 + Handshake.HELLO) {
                c.drain();
                out = c.out();
            }
            out.put((byte) Handshake.ACCEPTED);
            Handshake.write(out, new Handshake.Hello(Handshake.VERSION, hello.compression(), tl.maxFrame, tl.maxInFlight));
            pos += Handshake.HELLO;
            // The server writes in the compression the client writes (docs/teleport.md).
            rd = StreamCodec.reader(hello.compression(), tl.maxFrame);
            wr = StreamCodec.writer(hello.compression(), peerMaxFrame);
            batch.writer(wr);
            limits.start();
            retiring = false;
            c.restartTimerPhase();
        }
        if (rd != null) {
            return decoded(buf, pos, end);
        }
        int r = frames(buf, pos, end);
        return r < 0 ? end : r;
    }

    /**
     * Compressed input {@code [pos, end)}: decoded, its whole frames handled; returns where the rest
     * begins (an LZ4 block not yet whole stays with the connection, {@link #expectedInput} says how large).
     */
    private int decoded(ByteBuffer buf, int pos, int end) {
        while (c.isOpen()) {
            int took = rd.decode(buf, pos, end, tl.maxFrame + Frame.HEADER + 16 * 1024 - rd.in().position());
            if (took < 0) {
                return protocolError("corrupt " + rd.name() + " stream", end);
            }
            pos += took;
            int r = frames(rd.in(), 0, rd.in().position());
            if (r < 0) {
                return end;
            }
            rd.consume(r);
            if ((took == 0 || pos >= end) && !rd.full()) {
                break;
            }
        }
        return c.isOpen() ? pos : end;
    }

    /** Handles the whole frames of {@code [pos, end)}: returns where the rest begins, or -1 when the connection closed. */
    private int frames(ByteBuffer buf, int pos, int end) {
        expected = 0;
        while (pos < end && c.isOpen()) {
            int r = Frame.check(buf, pos, end, tl.maxFrame);
            if (r == Frame.NEED_MORE) {
                if (end - pos >= Frame.HEADER) {
                    expected = Frame.HEADER + (int) Frame.length(buf, pos);
                }
                break;
            }
            if (r < 0) {
                return protocolError(r == Frame.TOO_LARGE ? "frame above " + tl.maxFrame + " bytes" : "unknown frame type "
                        + Frame.type(buf, pos), -1);
            }
            if (!onFrame(buf, pos, r)) {
                return -1;
            }
            pos = r;
        }
        return pos;
    }

    /** Handles the whole frame {@code [pos, end)}; false when it closed the connection. */
    private boolean onFrame(ByteBuffer buf, int pos, int end) {
        int id = Frame.id(buf, pos);
        switch (Frame.type(buf, pos)) {
            case Frame.REQUEST:
                if (id == 0) {
                    protocolError("REQUEST with id 0", 0);
                    return false;
                }
                if (!exchanges.isEmpty() && exchanges.containsKey(id)) { // isEmpty first: the key boxes (ids past 127 allocate)
                    protocolError("REQUEST " + Integer.toUnsignedString(id) + " while one with that id is in flight", 0);
                    return false;
                }
                if (retiring) {
                    return true; // sent before our GOAWAY reached the client: not taken, it resends it elsewhere
                }
                lastId = id;
                if (limits.taken(srv.loop().nowMillis())) {
                    retire(); // after this one: GOAWAY leaves in the same batch as (or before) its RESPONSE
                }
                if (exchanges.size() >= tl.maxInFlight) {
                    srv.loop().metrics().rejected(503); // beyond the cap this server stated in its hello
                    answerError(id, 503);
                    return true;
                }
                return request(id, buf, pos + Frame.HEADER, end);
            case Frame.PING:
                if (end - pos == Frame.HEADER) { // a ping, not an answer to ours: answered at once
                    control(id, Frame.PING, (byte) 1);
                }
                return true;
            case Frame.CANCEL:
                return true; // the response is still sent (the client drops it): it frees the id on both sides
            case Frame.GOAWAY:
                c.closeOnceWritten(); // the client sends no more requests; every one so far is answered
                return false;
            default: // RESPONSE: a server is never sent one
                protocolError("RESPONSE frame sent to a server", 0);
                return false;
        }
    }

    /** Frames, dispatches and answers the REQUEST payload {@code [from, to)}. */
    private boolean request(int id, ByteBuffer buf, int from, int to) {
        RequestView req = srv.request();
        RequestFramer framer = tl.framer;
        framer.reset();
        int r = framer.frame(buf, from, to, req);
        String[] trailers = r >= 0 ? framer.trailerFields() : null; // a chunked body's, as over HTTP/1.1
        framer.reset();
        if (r == RequestFramer.NEED_MORE || r == RequestFramer.EMPTY_LINES || (r >= 0 && r != to)) {
            protocolError("REQUEST " + Integer.toUnsignedString(id) + " is not exactly one HTTP/1.1 message", 0);
            return false;
        }
        if (r < 0) {
            srv.loop().metrics().rejected(-r);
            answerError(id, -r);
            return true;
        }
        if (trailers != null) {
            req.setTrailers(trailers);
        }
        dispatch(id, req);
        return true;
    }

    private void dispatch(int id, RequestView req) {
        req.setRemoteAddress(c.endpoint().remoteAddress());
        ResponseView res = srv.response();
        res.reset();
        Handler h = srv.router().resolve(req, tl.paramStarts, tl.paramEnds);
        srv.beginTrace(req, res);
        runningSince = srv.timingStart();
        runningKey = runningSince == 0 ? 0 : srv.timingKey(req);
        if (h instanceof BlockingHandler) { // on the blocking executor; answered through its exchange
            TeleportExchange x = new TeleportExchange(this, srv, c, id, runningSince, runningKey);
            x.exchange = Exchange.blocking(x, req, (BlockingHandler) h, -1);
            exchanges.put(id, x);
            return;
        }
        runningId = id;
        tl.interim.begin(peerMaxFrame);
        runInline(h, req, res);
        int special = res.special();
        if (special != 0) {
            if (special == ResponseView.ASYNC && asyncHost != null) {
                Exchange x = srv.offLoop().takePending();
                if (x != null) { // answered when the handler completes (TeleportExchange)
                    asyncHost.exchange = x;
                    exchanges.put(id, asyncHost);
                    asyncHost = null;
                    return;
                }
            }
            asyncHost = null;
            if ((special & (ResponseView.FILE | ResponseView.PRODUCER)) != 0 && (special & ResponseView.ASYNC) == 0) {
                inPieces(id, req, res);
                return;
            }
            srv.offLoop().handlerThrew(); // cancels an exchange the handler started
            res.reset();
            res.error(500);
        }
        boolean head = req.methodId() == Methods.HEAD;
        srv.loop().metrics().requests++;
        if (srv.compressor() != null) {
            srv.compressor().apply(req, res, head);
        }
        srv.responding(req, res, head);
        timed(runningSince, runningKey, res.statusCode());
        FrameSink sink = tl.sink;
        sink.begin(peerMaxFrame);
        FrameSink interim = tl.interim;
        if (interim.length() > 0 && !interim.overflowed()) {
            sink.take(interim.out(), 0, interim.length()); // the handler's 1xx responses first, in the same payload
        }
        // keepAlive: the connection outlives every message; a "Connection: close" would mean nothing here.
        srv.encoder().encode(res, head, true, req.versionNumber() == 10, sink);
        if (sink.overflowed()) {
            LOG.log(System.Logger.Level.WARNING, "response to " + req + " is larger than the teleport client's frame limit ("
                    + peerMaxFrame + " bytes); answered 500");
            answerError(id, 500);
            return;
        }
        OutputSink to = batch.out();
        sink.emit(to, id, Frame.RESPONSE);
        batch.added(Frame.HEADER + sink.length());
    }

    /**
     * An inline handler answered with a file or a producer: the body is gathered whole (as the HTTP/1.1
     * server would send it, a producer's chunked) and leaves as one frame; past the client's max frame,
     * or if the body fails, 500.
     */
    private void inPieces(int id, RequestView req, ResponseView res) {
        if (c.out().position() > 0) {
            c.flushBatch(); // the capture borrows the loop's write buffer: what waits there leaves first
        }
        boolean head = req.methodId() == Methods.HEAD;
        boolean http10 = req.versionNumber() == 10;
        dev.peregrine.offloop.BodySource.openFile(res); // a file gone since the handler's call is a 404 now
        srv.loop().metrics().requests++;
        srv.responding(req, res, head);
        timed(runningSince, runningKey, res.statusCode());
        ResponseCapture cap = new ResponseCapture(c, peerMaxFrame, () -> { });
        FrameSink interim = tl.interim;
        if (interim.length() > 0 && !interim.overflowed()) {
            FrameSink.copy(interim.out(), interim.length(), cap.connection()); // the handler's 1xx responses first
        }
        boolean whole;
        String why = "it is larger than the teleport client's frame limit (" + peerMaxFrame + " bytes)";
        Throwable cause = null;
        try {
            boolean keepAlive = dev.peregrine.offloop.BodySource.keepAlive(res, true, http10);
            whole = cap.pumpAll(dev.peregrine.offloop.BodySource.start(srv, res, req, head, keepAlive, http10, cap.connection()));
        } catch (java.io.IOException | RuntimeException e) {
            whole = false;
            why = "its body failed";
            cause = e;
        }
        cap.collect();
        cap.release();
        if (!whole) {
            LOG.log(System.Logger.Level.WARNING, "teleport response to " + req + " answered 500: " + why, cause);
            answerError(id, 500);
            return;
        }
        FrameSink.emit(batch.out(), cap.message(), cap.length(), id, Frame.RESPONSE);
        batch.added(Frame.HEADER + cap.length());
    }

    private void runInline(Handler h, RequestView req, ResponseView res) {
        srv.runningFor(this);
        try {
            h.handle(req, res);
        } catch (Throwable t) {
            asyncHost = null;
            int status = srv.handlerFailed(req, t);
            srv.offLoop().handlerThrew();
            res.reset();
            res.error(status);
        }
    }

    /** Ops: a request timed from {@code since} (0: untimed) ended with {@code status}. */
    private void timed(long since, int key, int status) {
        if (since != 0) {
            srv.requestDone(key, status, since);
        }
    }

    /** {@link TeleportExchange}: its response is about to be encoded (or was abandoned) with {@code status}. */
    void requestEnded(TeleportExchange x, int status) {
        timed(x.startNanos, x.durationKey, status);
    }

    /**
     * {@link TeleportExchange}: its response is whole in {@code cap} (or {@code cap} is null: it
     * failed; or it overflowed the client's frame limit): the RESPONSE frame, or a 500, joins the batch.
     */
    void exchangeAnswered(TeleportExchange x, ResponseCapture cap) {
        exchanges.remove(x.id);
        if (!c.isOpen() && c.state() != Connection.State.CLOSING) {
            return;
        }
        if (cap == null || cap.overflowed()) {
            if (cap != null) {
                LOG.log(System.Logger.Level.WARNING, "teleport response to request " + Integer.toUnsignedString(x.id)
                        + " is larger than the client's frame limit (" + peerMaxFrame + " bytes); answered 500");
            }
            answerError(x.id, 500);
            return;
        }
        FrameSink.emit(batch.out(), cap.message(), cap.length(), x.id, Frame.RESPONSE);
        batch.added(Frame.HEADER + cap.length());
    }

    private void answerError(int id, int status) {
        FrameSink sink = tl.sink;
        sink.begin(Math.max(peerMaxFrame, 1024));
        srv.encoder().encodeError(status, sink);
        sink.emit(batch.out(), id, Frame.RESPONSE);
        batch.added(Frame.HEADER + sink.length());
    }

    /** Appends a frame of {@code type} with an empty or one-byte payload ({@code payload} &lt; 0: none). */
    private void control(int id, byte type, int payload) {
        OutputSink to = batch.out();
        ByteBuffer out = to.out();
        if (out.remaining() < Frame.HEADER + 1) {
            to.drain();
            out = to.out();
        }
        Frame.writeHeader(out, payload < 0 ? 0 : 1, id, type);
        if (payload >= 0) {
            out.put((byte) payload);
        }
        batch.added(Frame.HEADER + (payload < 0 ? 0 : 1));
    }

    private void refuse(int reason) {
        LOG.log(System.Logger.Level.DEBUG, () -> "teleport handshake refused from " + c.endpoint().remoteAddress() + ": "
                + Handshake.reason(reason));
        c.out().put((byte) reason);
        c.closeAfterOutput();
    }

    /** Bad input: one DEBUG line, the connection closes (no other is affected). Returns {@code ret}. */
    private int protocolError(String what, int ret) {
        LOG.log(System.Logger.Level.DEBUG, () -> "teleport protocol error from " + c.endpoint().remoteAddress() + ": " + what
                + "; connection closed");
        c.releaseInput();
        c.close();
        return ret;
    }

    @Override
    public int expectedInput() {
        return rd != null ? rd.expectedInput() : expected;
    }

    @Override
    public void onInputOverflow(Connection c) {
        protocolError("frame larger than the largest input buffer", 0);
    }

    @Override
    public void onEndOfInput(Connection c) {
        batch.write(); // what waits for a batch delay leaves before the close
        c.closeOnceWritten();
    }

    /** While requests are off the loop or frames wait for their batch, the connection does not close before they leave. */
    @Override
    public boolean producing() {
        return !exchanges.isEmpty() || batch.waiting();
    }

    @Override
    public int timerPhase() {
        if (!handshaken) {
            return T_HANDSHAKE;
        }
        if (!exchanges.isEmpty()) {
            return 0; // each exchange's asyncTimeout bounds the wait
        }
        return c.heldInput() == null ? T_IDLE : T_FRAME;
    }

    @Override
    public long timeoutMillis(int phase) {
        switch (phase) {
            case T_HANDSHAKE:
                return Handshake.TIMEOUT_MILLIS;
            case T_FRAME:
                return tl.config.bodyTimeoutMillis();
            default: // idle: at most until the connection's age, when it is retired
                return retiring ? tl.config.idleTimeoutMillis() : limits.idleMillis(srv.loop().nowMillis());
        }
    }

    /**
     * {@code maxRequestsPerConnection} reached or {@code maxConnectionAge} passed: GOAWAY with the last
     * id taken. Requests in flight are answered; the client closes once they are (and resends on a new
     * connection any it sent after {@code lastId}); the idle timeout closes a client that does not.
     */
    private void retire() {
        retiring = true;
        control(lastId, Frame.GOAWAY, -1);
    }

    @Override
    public boolean progressRestarts(int phase) {
        return phase != T_HANDSHAKE;
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        if (phase == T_IDLE && !retiring && limits.aged(srv.loop().nowMillis())) {
            retire(); // aged while idle: the client reconnects (HTTP/1.1 closes after its grace; GOAWAY is graceful)
            batch.write();
            return;
        }
        srv.loop().metrics().timedOut(phase == T_IDLE ? LoopMetrics.TIMEOUT_IDLE : LoopMetrics.TIMEOUT_BODY);
        if (phase == T_HANDSHAKE) {
            c.releaseInput();
            refuse(Handshake.REASON_TIMEOUT);
            c.flush();
            c.updateTimer();
            return;
        }
        c.close();
    }

    /** Server shutdown: GOAWAY with the last id taken; the connection closes once those still off the loop are answered. */
    @Override
    public void onShutdown(Connection c) {
        if (handshaken) {
            control(lastId, Frame.GOAWAY, -1);
            batch.cut();
        }
        c.releaseInput();
        c.closeAfterOutput();
        c.flush();
        c.updateTimer();
    }

    @Override
    public void onClosed(Connection c) {
        tl.framer.reset();
        batch.clear();
        if (rd != null) {
            rd.end();
            rd = null;
        }
        if (wr != null) {
            wr.end();
            wr = null;
        }
        for (TeleportExchange x : exchanges.values()) {
            timed(x.startNanos, x.durationKey, CLIENT_CLOSED);
            x.connectionClosed(); // the handler learns through its streams; a late completion sends nothing
        }
        exchanges.clear();
    }

    // ---------------------------------------------------------------- InlineSite

    @Override
    public Connection connection() {
        return c;
    }

    /** An inline handler's interim responses gather apart, to begin its final response's payload (never between frames). */
    @Override
    public OutputSink interimOut() {
        return tl.interim;
    }

    /** {@code res.async()} reaches here: the request's own host, so that many are in flight at once. */
    @Override
    public OffLoopHost offLoopHost() {
        asyncHost = new TeleportExchange(this, srv, c, runningId, runningSince, runningKey);
        return asyncHost;
    }
}
