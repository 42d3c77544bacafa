package dev.peregrine.teleport;

import dev.peregrine.Handler;
import dev.peregrine.http1.Methods;
import dev.peregrine.http1.RequestFramer;
import dev.peregrine.http1.RequestView;
import dev.peregrine.http1.ResponseView;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopMetrics;
import dev.peregrine.loop.Protocol;
import dev.peregrine.offloop.BlockingHandler;
import dev.peregrine.offloop.InlineSite;
import dev.peregrine.offloop.OffLoopHost;
import dev.peregrine.server.ServerLoop;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The teleport server as a {@link Protocol} on a {@link Connection}: the handshake, then frames
 * ({@link Frame}); each REQUEST payload is framed as exactly one HTTP/1.1 message by the HTTP
 * server's own {@link RequestFramer}, routed and answered by the same handlers, and the response,
 * encoded by the same encoder, leaves as a RESPONSE frame with the request's id. Responses gather in
 * the connection's batch, which leaves in one write when {@link #onInput} returns (the end of the
 * loop's turn for this connection).
 * <pre>
 *   HELLO --client hello accepted: 0x00 + server hello--&gt; FRAMES --GOAWAY sent (shutdown)--&gt; closing
 *     |  bad hello: reason byte, close; none within 3 s: REASON_TIMEOUT, close
 *   FRAMES: REQUEST  -&gt; handler -&gt; RESPONSE (same id)
 *           PING     -&gt; PING ack (same id)         CANCEL -&gt; nothing under way to cancel (answered inline)
 *           GOAWAY   -&gt; close once written          RESPONSE, id 0, oversized/unknown frame,
 *                                                    payload not exactly one message -&gt; close
 * </pre>
 * Handlers run inline, so every request is answered before the next frame is read and ids never
 * overlap. A route whose handler is blocking, or that answers with {@code async()},
 * {@code sendFile()} or a stream, is answered {@code 501} over teleport (see docs/teleport.md).
 * A request the parser refuses (400, 413, 431...) is answered with that status in its RESPONSE frame
 * and the connection goes on: the frame boundary is intact.
 *
 * <p>Thread: the owning loop thread only.
 */
final class TeleportServerProtocol implements Protocol, InlineSite {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.teleport");
    private static final int T_HANDSHAKE = 1;
    private static final int T_IDLE = 2;
    private static final int T_FRAME = 3;

    private final TeleportLoop tl;
    private final ServerLoop srv;
    private Connection c;
    private boolean handshaken;
    /** The client's largest accepted payload: responses above it are answered 500 instead. */
    private int peerMaxFrame;
    /** Deflate both ways (the client chose it), or null. */
    private DeflateStream ds;
    /** Async responses waiting for {@link #flushTask} (without deflate; with it they wait in its plain batch). */
    private PendingFrames pending;
    private boolean flushQueued;
    private final Runnable flushTask = this::flushAsync;
    private int lastId;
    /** Requests answered off the loop ({@code async()}), by id, until their response leaves. */
    private final Map<Integer, TeleportExchange> exchanges = new HashMap<>();
    /** The id of the request whose handler runs now, and the host its {@code async()} took, if any. */
    private int runningId;
    private TeleportExchange asyncHost;
    /** The length of the frame held in part, for the lent buffer's size; 0 when none. */
    private int expected;

    TeleportServerProtocol(TeleportLoop tl) {
        this.tl = tl;
        this.srv = tl.http;
    }

    @Override
    public void onOpen(Connection c) {
        this.c = c;
    }

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        int pos = start;
        if (!handshaken) {
            int r = Handshake.check(buf, pos, end, TeleportCompression.NONE, TeleportCompression.DEFLATE);
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
            // The server writes in the compression the client writes (docs/teleport.md).
            boolean deflate = hello.compression() == TeleportCompression.DEFLATE;
            out.put((byte) Handshake.ACCEPTED);
            Handshake.write(out, new Handshake.Hello(Handshake.VERSION, hello.compression(), tl.maxFrame, tl.maxInFlight));
            pos += Handshake.HELLO;
            if (deflate) {
                ds = new DeflateStream(true, true);
            }
            c.restartTimerPhase();
        }
        if (ds != null) {
            return inflated(buf, pos, end);
        }
        int r = frames(buf, pos, end);
        return r < 0 ? end : r;
    }

    /** Compressed input {@code [pos, end)}: inflated, its whole frames handled; all of it is taken. */
    private int inflated(ByteBuffer buf, int pos, int end) {
        while (c.isOpen()) {
            int took = ds.inflate(buf, pos, end, tl.maxFrame + Frame.HEADER + 16 * 1024 - ds.in().position());
            if (took < 0) {
                return protocolError("corrupt deflate stream", end);
            }
            pos += took;
            int r = frames(ds.in(), 0, ds.in().position());
            if (r < 0) {
                return end;
            }
            ds.consume(r);
            if (pos >= end && !ds.full()) {
                break;
            }
        }
        flushOut();
        return end;
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

    /** Where frames go: the connection's batch, or the plain batch of a deflate stream. */
    private dev.peregrine.buffer.OutputSink frameOut() {
        return ds != null ? ds.plain : c;
    }

    /** With deflate: the plain batch, compressed and sync-flushed, into the connection's batch. */
    private void flushOut() {
        if (ds != null && c.isOpen()) {
            ds.flush(c);
        }
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
                if (exchanges.containsKey(id)) {
                    protocolError("REQUEST " + Integer.toUnsignedString(id) + " while one with that id is in flight", 0);
                    return false;
                }
                lastId = id;
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
        dispatch(id, req);
        return true;
    }

    private void dispatch(int id, RequestView req) {
        req.setRemoteAddress(c.endpoint().remoteAddress());
        ResponseView res = srv.response();
        res.reset();
        Handler h = srv.router().resolve(req, tl.paramStarts, tl.paramEnds);
        if (h instanceof BlockingHandler) {
            res.error(501);
        } else {
            runningId = id;
            runInline(h, req, res);
        }
        if (res.special() != 0) {
            if (res.special() == ResponseView.ASYNC && asyncHost != null) {
                dev.peregrine.offloop.Exchange x = srv.offLoop().takePending();
                if (x != null) { // answered when the handler completes (TeleportExchange)
                    asyncHost.exchange = x;
                    exchanges.put(id, asyncHost);
                    asyncHost = null;
                    return;
                }
            }
            asyncHost = null;
            srv.offLoop().handlerThrew(); // sendFile() or a stream: not carried over teleport; cancels an exchange
            res.reset();
            res.error(501);
        }
        boolean head = req.methodId() == Methods.HEAD;
        srv.loop().metrics().requests++;
        if (srv.compressor() != null) {
            srv.compressor().apply(req, res, head);
        }
        FrameSink sink = tl.sink;
        sink.begin(peerMaxFrame);
        // keepAlive: the connection outlives every message; a "Connection: close" would mean nothing here.
        srv.encoder().encode(res, head, true, req.versionNumber() == 10, sink);
        if (sink.overflowed()) {
            LOG.log(System.Logger.Level.WARNING, "response to " + req + " is larger than the teleport client's frame limit ("
                    + peerMaxFrame + " bytes); answered 500");
            answerError(id, 500);
            return;
        }
        sink.emit(frameOut(), id, Frame.RESPONSE);
    }

    private void runInline(Handler h, RequestView req, ResponseView res) {
        srv.offLoop().runningFor(this);
        int before = c.out().position();
        try {
            h.handle(req, res);
        } catch (Throwable t) {
            asyncHost = null;
            int status = srv.handlerFailed(req, t);
            srv.offLoop().handlerThrew();
            res.reset();
            res.error(status);
        }
        if (c.out().position() != before) {
            // An interim response (1xx) went straight into the batch: it has no place between frames.
            c.out().position(Math.min(before, c.out().position()));
        }
    }

    /**
     * {@link TeleportExchange}, in a loop task: the response encoded at {@code [mark, position)} of the
     * loop's buffer becomes a RESPONSE frame waiting for this connection's next write, which a task
     * queued behind the completions that came with it makes ({@link #flushTask}): one write (and one
     * compress) for them all.
     */
    void frameFromOut(int id, int mark) {
        ByteBuffer out = c.out();
        int end = out.position();
        FrameSink sink = tl.sink;
        sink.begin(peerMaxFrame);
        sink.take(out, mark, end - mark);
        out.position(mark); // nothing may stay in the loop's shared buffer after this task
        dev.peregrine.buffer.OutputSink to = ds != null ? ds.plain : pending();
        if (sink.overflowed()) {
            answerError(id, 500, to);
        } else {
            sink.emit(to, id, Frame.RESPONSE);
        }
        if (!flushQueued) {
            flushQueued = true;
            srv.loop().eventLoop().execute(flushTask);
        }
    }

    private PendingFrames pending() {
        if (pending == null) {
            pending = new PendingFrames();
        }
        return pending;
    }

    /** Writes the async responses gathered since the last write. */
    private void flushAsync() {
        flushQueued = false;
        if (!c.isOpen() && c.state() != Connection.State.CLOSING) {
            if (pending != null) {
                pending.clear();
            }
            return;
        }
        if (ds != null) {
            flushOut();
        } else if (pending != null && !pending.isEmpty()) {
            pending.moveTo(c);
        }
        c.flush();
        c.updateTimer();
    }

    /** {@link TeleportExchange}: its response left (or never will). */
    void exchangeEnded(TeleportExchange x) {
        exchanges.remove(x.id);
    }

    private void answerError(int id, int status) {
        answerError(id, status, frameOut());
    }

    private void answerError(int id, int status, dev.peregrine.buffer.OutputSink to) {
        FrameSink sink = tl.sink;
        sink.begin(Math.max(peerMaxFrame, 1024));
        srv.encoder().encodeError(status, sink);
        sink.emit(to, id, Frame.RESPONSE);
    }

    /** Appends a frame of {@code type} with an empty or one-byte payload ({@code payload} &lt; 0: none). */
    private void control(int id, byte type, int payload) {
        dev.peregrine.buffer.OutputSink to = frameOut();
        ByteBuffer out = to.out();
        if (out.remaining() < Frame.HEADER + 1) {
            to.drain();
            out = to.out();
        }
        Frame.writeHeader(out, payload < 0 ? 0 : 1, id, type);
        if (payload >= 0) {
            out.put((byte) payload);
        }
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
        return expected;
    }

    @Override
    public void onInputOverflow(Connection c) {
        protocolError("frame larger than the largest input buffer", 0);
    }

    @Override
    public void onEndOfInput(Connection c) {
        c.closeOnceWritten();
    }

    /** While requests are off the loop, the connection does not close before their responses left. */
    @Override
    public boolean producing() {
        return !exchanges.isEmpty() || flushQueued;
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
            default:
                return tl.config.idleTimeoutMillis();
        }
    }

    @Override
    public boolean progressRestarts(int phase) {
        return phase != T_HANDSHAKE;
    }

    @Override
    public void onTimeout(Connection c, int phase) {
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
            flushOut();
        }
        c.releaseInput();
        c.closeAfterOutput();
        c.flush();
        c.updateTimer();
    }

    @Override
    public void onClosed(Connection c) {
        tl.framer.reset();
        if (pending != null) {
            pending.clear();
        }
        if (ds != null) {
            ds.end();
            ds = null;
        }
        for (TeleportExchange x : exchanges.values()) {
            x.exchange.connectionClosed(); // the handler learns through its streams; a late completion is ignored
        }
        exchanges.clear();
    }

    // ---------------------------------------------------------------- InlineSite

    @Override
    public Connection connection() {
        return c;
    }

    /** {@code res.async()} reaches here: the request's own host, so that many are in flight at once. */
    @Override
    public OffLoopHost offLoopHost() {
        asyncHost = new TeleportExchange(this, srv, c, runningId);
        return asyncHost;
    }
}
