package dev.peregrine.server;

import dev.peregrine.BodyListener;
import dev.peregrine.Handler;
import dev.peregrine.ServerConfig;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.ChunkedDecoder;
import dev.peregrine.http1.Methods;
import dev.peregrine.http1.RequestFramer;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopMetrics;
import dev.peregrine.loop.Protocol;
import dev.peregrine.offloop.BlockingHandler;
import dev.peregrine.offloop.BodySource;
import dev.peregrine.offloop.Exchange;
import dev.peregrine.offloop.IncomingBody;
import dev.peregrine.offloop.InlineSite;
import dev.peregrine.offloop.OffLoopHost;
import dev.peregrine.offloop.StreamingHandler;

import java.nio.ByteBuffer;

/**
 * The HTTP/1.1 server as a {@link Protocol} on a {@link Connection}: it frames requests (head, then
 * Content-Length or chunked body, {@code 100 Continue}), dispatches them to handlers, and encodes
 * the responses into the connection's batch. The socket, buffers, batching, backpressure, closing and
 * the timer node are the connection's.
 *
 * <p><b>States.</b> Each request passes through these; the connection's close states
 * ({@link Connection.State}) run beside them, and a request that cannot be answered on the loop
 * parks the protocol in one of the BUSY states:
 * <pre>
 *   IDLE --first byte--&gt; HEAD --head parsed--&gt; BODY (Content-Length / chunked) --complete--&gt; dispatch
 *     ^                                                                                  |
 *     |   inline handler: response encoded into the batch                                 |
 *     +-----------------------------------------------------------------------------------+
 *     |   BUSY exchange: blocking handler or async() (Exchange); held input waits
 *     |   BUSY body out: response body in pieces (BodySource: file, producer, output stream)
 *     |   BUSY body in:  request body streamed to a handler (IncomingBody), reads go to it
 *     +--- exchangeDone / body finished: resumeInput() offers the held input again
 *   any state --bad request (4xx/5xx, Connection: close), Connection: close, HTTP/1.0, last allowed
 *               request--&gt; connection CLOSING
 *   HEAD --Upgrade: token (registered)--&gt; 101, connection switched to the token's protocol
 *   dispatch --the handler wrote its 101 and switched (WebSocket's handshake route)--&gt; stop
 *   IDLE --first bytes are the HTTP/2 preface / ALPN chose another protocol--&gt; switched
 * </pre>
 * The timer phase follows the state ({@link #timerPhase}):
 * <pre>
 *   phase   while                                   clock starts            on expiry
 *   IDLE    no request under way, nothing pending   last request answered   close
 *   HEAD    a request head is incomplete            its first byte          408, close
 *   BODY    a request body is incomplete            last byte received      408, close
 *   (none)  BUSY: the exchange's asyncTimeout bounds it
 * </pre>
 * (WRITE and DRAIN are the connection's phases.) So a keep-alive request costs one field store for
 * its timeout, not a wheel operation.
 *
 * <p><b>Off the loop.</b> A request for a blocking handler, or whose handler called
 * {@code res.async()}, becomes an {@link Exchange}; a response body sent in pieces (a file, a
 * handler's stream) is a {@link BodySource}; a large request body streamed to a handler is a
 * {@link IncomingBody}. While one is in progress the protocol handles no further request: what
 * arrives meanwhile is held by the connection (reading pauses beyond {@link Connection#HOLD_LIMIT}),
 * so responses leave in request order. The hooks for this are marked "off-loop hook".
 *
 * <p>Thread: the owning loop thread only.
 */
public final class Http1ServerProtocol extends RequestBudget implements Protocol, InlineSite {
    private static final int NEED_MORE = -1;
    private static final int STOP = -2;
    /** {@link #streamBody} leaves the request to the ordinary path. */
    private static final int NOT_STREAMED = -3;

    /** Timer phases of the protocol (see the class javadoc); 0 is "none". */
    private static final int T_IDLE = 1;
    private static final int T_HEAD = 2;
    private static final int T_BODY = 3;

    private final ProtocolSwitches switches;
    /** {@code maxPipelinedRequests}, read once here: {@link #onInput} counts down from it on every read. */
    private final int maxPipelined;
    private Connection c;
    /** No request has begun yet: the preface and ALPN are looked at once, before the first. */
    private boolean fresh = true;
    /** Where each request begins and ends, across reads. */
    private final RequestFramer framer;
    private boolean continueSent;
    /**
     * What is under way off the loop or in pieces (the BUSY states); while producing, no further
     * request. Made on the first hand-off ({@link #offLoopHost}): inline-only connections have none.
     */
    private OffLoopWork work;

    Http1ServerProtocol(ServerLoop srv) {
        super(srv);
        this.switches = srv.setup.switches();
        ServerConfig config = srv.config;
        this.maxPipelined = config.maxPipelinedRequests();
        this.framer = new RequestFramer(srv.parser, config.maxBodySize(), config.maxHeadSize(), config.streamBodyThreshold(), true);
    }

    /**
     * A connection accepted, or a recycled one with this protocol ({@link #recyclable}): every
     * per-connection field starts afresh here.
     */
    @Override
    public void onOpen(Connection c) {
        this.c = c;
        fresh = true;
        continueSent = false;
        startBudget();
        framer.reset();
    }

    // ---------------------------------------------------------------- Protocol

    @Override
    public boolean onReadable(Connection c) throws java.io.IOException {
        return work != null && work.onReadable(c); // off-loop hook: a streamed request body takes what arrives
    }

    /** Parses and answers every complete request in {@code [start, end)}; returns where the rest begins. */
    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        if (fresh) {
            int r = switches.beforeFirstRequest(c, buf, start, end);
            if (r != ProtocolSwitches.STAY) {
                return start; // the preface is still arriving, or the bytes now belong to another protocol
            }
            fresh = false;
        }
        int pos = start;
        int answered = 0;
        int untilFlush = maxPipelined; // a countdown: no division per request
        while (pos < end && c.isOpen() && !c.readPaused() && (work == null || work.readyForNext())) {
            int r = handleOne(buf, pos, end);
            if (r == NEED_MORE) {
                break;
            }
            if (r == STOP) {
                pos = end;
                break;
            }
            pos = r;
            if (c.protocol() != this) {
                return pos; // upgraded: the rest is the new protocol's
            }
            answered++;
            if (--untilFlush == 0) {
                // A pipelined batch this long: go on only once the socket took the responses so far.
                untilFlush = maxPipelined;
                c.flushBatch();
                if (c.pendingOutput() > 0 && !c.readPaused()) {
                    c.pauseReading();
                }
            }
        }
        if (pos == end) {
            framer.consumedAll();
        }
        if (answered > 0 && pos < end) {
            // The next request's head clock starts now. With nothing left (pos == end) no head is held:
            // the phase is IDLE, whose clock progress restarts anyway (ConnectionTimer.update), or none.
            c.restartTimerPhase();
        }
        return pos;
    }

    @Override
    public int keep(ByteBuffer src, int from, int to, ByteBuffer dst) {
        return framer.keep(src, from, to, dst); // decoded chunk framing is not kept
    }

    @Override
    public int expectedInput() {
        return framer.expectedInput();
    }

    @Override
    public void onInputOverflow(Connection c) {
        reject(framer.inHead() ? 431 : 413);
    }

    /**
     * The peer sent FIN. A half-closed peer may still be reading (RFC 9112 §9.6 lets a client close
     * its sending side after its last request), so responses already queued are written first; the
     * connection closes once they are out. An incomplete request is dropped.
     */
    @Override
    public void onEndOfInput(Connection c) {
        if (work != null && work.producing()) { // off-loop hook: held requests are answered, then it closes
            c.readInterest(false);
            return;
        }
        if (framer.inHead() && rejectHeldHead()) {
            return;
        }
        c.closeOnceWritten();
    }

    /** At end of input, answers an incomplete head that is already invalid ({@link RequestFramer#atEndOfInput}). */
    private boolean rejectHeldHead() {
        int r = framer.atEndOfInput(c.heldInput(), 0, c.heldInputLength(), srv.request);
        if (r == RequestFramer.NEED_MORE) {
            return false;
        }
        c.releaseInput();
        framer.reset();
        reject(-r);
        c.flush();
        c.updateTimer();
        return true;
    }

    @Override
    public void onOutputReady(Connection c) {
        if (work != null) {
            work.onOutputReady(); // off-loop hook: a body in pieces continues as the socket drains
        }
    }

    @Override
    public boolean producing() {
        return work != null && work.producing();
    }

    @Override
    public int timerPhase() {
        if (work != null && work.busy()) {
            return 0; // BUSY: the exchange's own timer (asyncTimeout) bounds this wait
        }
        if (c.heldInput() == null) {
            return T_IDLE;
        }
        return framer.awaitingBody() ? T_BODY : T_HEAD;
    }

    @Override
    public long timeoutMillis(int phase) {
        ServerConfig config = srv.config;
        switch (phase) {
            case T_HEAD:
                return config.headerTimeoutMillis();
            case T_BODY:
                return config.bodyTimeoutMillis();
            default:
                return idleMillis(c.timerSinceMillis()); // idleTimeout, or less once aged
        }
    }

    @Override
    public boolean progressRestarts(int phase) {
        return phase != T_HEAD; // slowloris: a head dribbling in does not buy more time
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        LoopMetrics m = srv.metrics;
        if (phase == T_IDLE) {
            if (aged()) {
                m.agedConnections++; // retired after maxConnectionAge and its grace
            } else {
                m.timedOut(LoopMetrics.TIMEOUT_IDLE);
            }
            c.close();
            return;
        }
        m.timedOut(phase == T_HEAD ? LoopMetrics.TIMEOUT_HEADER : LoopMetrics.TIMEOUT_BODY);
        // RFC 9110 §15.5.9: 408 when the server would not wait any longer; then close.
        c.releaseInput();
        framer.reset();
        reject(408);
        c.flush();
        c.updateTimer();
    }

    /**
     * Server shutdown: an idle connection closes now; a request partly received is finished and
     * answered with {@code Connection: close} (the header and body timeouts and the grace bound it);
     * one being answered (response being written, or off the loop) closes once its response is out.
     */
    @Override
    public void onShutdown(Connection c) {
        boolean answering = c.pendingOutput() > 0 || (work != null && work.busy());
        if (!answering && c.heldInput() == null) {
            c.close();
            return;
        }
        if (answering) {
            c.closeAfterOutput();
            c.releaseInput();
        } else {
            lastRequest();
        }
        c.updateTimer();
    }

    @Override
    public void onClosed(Connection c) {
        endTiming(CLIENT_CLOSED); // ops: a request whose answer never left (e.g. the client reset meanwhile)
        if (work != null) {
            work.onClosed(); // off-loop hook: the handler learns through its streams
        }
        framer.reset();
    }

    /**
     * Only a connection that never handed anything off the loop: an exchange, a body in pieces or a
     * streamed body may still be completed by another thread or a late task after the close.
     */
    @Override
    public boolean recyclable() {
        return work == null;
    }

    // ---------------------------------------------------------------- framing and dispatch

    /** Handles the request starting at {@code pos}: returns where the next one starts, NEED_MORE or STOP. */
    private int handleOne(ByteBuffer b, int pos, int end) {
        RequestView req = srv.request;
        int r = framer.frame(b, pos, end, req);
        if (r == RequestFramer.LARGE_BODY) { // off-loop hook: may stream to a blocking or streaming handler
            r = streamBody(req, b, pos, framer.headEnd(), end, req.isChunked() ? IncomingBody.UNKNOWN_LENGTH : req.contentLength());
            if (r != NOT_STREAMED) {
                return r;
            }
            r = framer.bufferedBody(b, pos, end, req);
        }
        if (r == RequestFramer.EMPTY_LINES) {
            return end;
        }
        if (r == RequestFramer.NEED_MORE) {
            if (framer.awaitingBody()) {
                sendContinue(req);
            }
            return NEED_MORE;
        }
        if (r < 0) {
            return reject(-r);
        }
        continueSent = false;
        String[] trailers = framer.trailerFields();
        if (trailers != null) {
            req.setTrailers(trailers); // a chunked body's (RFC 9112 §7.1.2), kept apart from the head's fields
        }
        dispatch(req);
        return r;
    }

    /** Runs the handler and encodes its response. */
    private void dispatch(RequestView req) {
        req.remoteFrom(c.endpoint()); // the address is made only if the handler asks
        if (req.connectionUpgrade() && switches.upgrade(c, req, srv.encoder)) { // the parser saw Connection: upgrade
            return; // RFC 9110 §7.8: the 101 is interim, the new protocol answers (and counts) the request (h2c: stream 1)
        }
        ResponseView res = srv.response;
        res.reset();
        if (srv.tracer != null) {
            srv.tracer.begin(req, res); // request id, access-log clock
        }
        Handler h = srv.router.resolve(req, srv.paramStarts, srv.paramEnds);
        beginTiming(req);
        handle(req, h);
    }

    /** Hands {@code req} (its body in memory) to its handler {@code h}, routed and timed, and encodes the response. */
    private void handle(RequestView req, Handler h) {
        ResponseView res = srv.response;
        if (h instanceof BlockingHandler) { // off-loop hook: runs on another thread, answered by Exchange
            offLoopWork().blocking(req, (BlockingHandler) h, -1);
            return;
        }
        runInline(h, req, res);
        if (c.protocol() != this) { // the handler wrote its 101 and switched the connection (WebSocket)
            srv.metrics.requests++;
            return;
        }
        if (res.special() != 0 && specialResponse(req, res)) { // off-loop hook: async(), sendFile() or stream()
            return;
        }
        boolean keepAlive = !lastAllowed(res) && req.keepAlive(); // counted and timed whatever the connection's fate
        srv.metrics.requests++;
        boolean head = req.methodId() == Methods.HEAD;
        if (srv.compressor != null && res.compressible(srv.compressMinSize)) { // a small body: no call
            srv.compressor.apply(req, res, head);
        }
        srv.responding(req, res, head);
        srv.encoder.encode(res, head, keepAlive, req.versionNumber() == 10, c);
        if (!keepAlive) {
            c.closeAfterOutput(); // nothing sent after this request is acted on
        }
    }

    /**
     * Off-loop hook: an inline handler called {@code async()}, {@code sendFile()} or {@code stream()}.
     * Returns false, having done nothing else, when the file to send is gone: the response is now the
     * server's 404 (or 500), answered as any other.
     */
    private boolean specialResponse(RequestView req, ResponseView res) {
        Exchange x = srv.offLoop.takePending();
        if (x != null) {
            offLoopWork().async(x);
            return true;
        }
        if (!BodySource.openFile(res)) {
            return false;
        }
        offLoopWork().sendInPieces(req, res, !lastAllowed(res.statusCode()) && req.keepAlive());
        return true;
    }

    /**
     * Off-loop hook: a Content-Length body above the stream threshold, or a chunked one
     * ({@code length} {@link IncomingBody#UNKNOWN_LENGTH}), goes to a blocking or streaming handler as
     * it arrives ({@link IncomingBody}); returns {@link #NOT_STREAMED} for other handlers. A chunked body
     * whose last chunk came with its head, no larger than {@code maxBodySize}, is handed over in memory
     * as a gathered one would be; else its chunk data so far is handed over, and the decoder goes on
     * with the socket's bytes. Returns where the next request starts (the bytes it took), or STOP.
     */
    private int streamBody(RequestView req, ByteBuffer b, int pos, int headEnd, int end, long length) {
        req.remoteFrom(c.endpoint()); // the address is made only if the handler asks
        Handler h = srv.router.resolve(req, srv.paramStarts, srv.paramEnds);
        beginTiming(req);
        boolean blocking = h instanceof BlockingHandler;
        if (!blocking && !(h instanceof StreamingHandler)) {
            return NOT_STREAMED;
        }
        ServerConfig config = srv.config;
        ChunkedDecoder chunks = null;
        int have;
        int taken;
        boolean whole;
        if (length == IncomingBody.UNKNOWN_LENGTH) { // chunked (RFC 9112 §7.1): decoded in place, from headEnd on
            chunks = new ChunkedDecoder();
            chunks.start(0);
            int r = chunks.decode(b, headEnd, end, config.maxStreamedBodySize(), config.maxHeadSize());
            if (r < ChunkedDecoder.NEED_MORE) {
                return reject(-r); // 400, 413 (past maxStreamedBodySize), 431 (trailers)
            }
            have = chunks.decodedEndRel();
            whole = r >= 0;
            taken = whole ? headEnd + r : end;
            if (whole && have <= config.maxBodySize()) { // all here and small: in memory, as if gathered
                continueSent = false;
                req.setBody(b, headEnd, have);
                req.setTrailers(chunks.trailerFields());
                srv.response.reset();
                if (srv.tracer != null) {
                    srv.tracer.begin(req, srv.response);
                }
                handle(req, h);
                return taken;
            }
            if (!whole) {
                chunks.consumeDecoded(); // what it read is handed over below; it goes on with the socket's bytes
            }
        } else {
            if (length > config.maxStreamedBodySize()) {
                if (srv.tracer != null) {
                    srv.tracer.begin(req, srv.response);
                }
                return reject(413); // answered from the head, before the body is read
            }
            have = (int) Math.min(end - headEnd, length);
            whole = have == length;
            taken = headEnd + have;
        }
        if (srv.tracer != null) {
            srv.tracer.begin(req, srv.response);
        }
        if (!whole) {
            sendContinue(req);
        }
        continueSent = false;
        req.setBody(b, headEnd, 0);
        if (blocking) {
            offLoopWork().blocking(req, (BlockingHandler) h, length);
        } else {
            BodyListener listener = callStreamingHandler(req, h);
            Exchange x = srv.offLoop.takePending();
            if (x == null) { // answered at once: the rest of the body is not read, and the connection closes
                ResponseView res = srv.response;
                BodySource.openFile(res); // a file gone since the handler's call: a 404, counted as one
                lastAllowed(res.statusCode()); // counted and timed like every response
                if (res.special() != 0) {
                    offLoopWork().sendInPieces(req, res, false);
                    offLoopWork().discardBody(length);
                    offLoopWork().feed(b, headEnd, have, chunks, config.maxHeadSize(), whole);
                    return taken;
                }
                srv.metrics.requests++;
                srv.responding(req, res, req.methodId() == Methods.HEAD);
                srv.encoder.encode(res, req.methodId() == Methods.HEAD, false, req.versionNumber() == 10, c);
                c.closeAfterOutput();
                return STOP;
            }
            offLoopWork().streamToListener(x, length, listener);
        }
        offLoopWork().feed(b, headEnd, have, chunks, config.maxHeadSize(), whole);
        return taken;
    }

    /** Runs {@code h} on the loop; an exception becomes a 500 (logged once; 400/413 for a bad form) and the loop carries on. */
    private void runInline(Handler h, RequestView req, ResponseView res) {
        srv.enterHandler(this, h); // also what async() and interim() reach (OffLoop)
        try {
            h.handle(req, res);
        } catch (Throwable t) {
            int status = srv.handlerFailed(req, t);
            srv.offLoop.handlerThrew();
            res.reset();
            res.error(status);
        } finally {
            srv.exitHandler();
        }
    }

    /** Off-loop hook: runs a {@code Handlers.streaming} handler on the head of a streamed body. */
    private BodyListener callStreamingHandler(RequestView req, Handler h) {
        ResponseView res = srv.response;
        res.reset();
        req.expectListener();
        runInline(h, req, res);
        return req.takeBodyListener();
    }

    // ---------------------------------------------------------------- InlineSite (OffLoop, during an inline handler)

    @Override
    public Connection connection() {
        return c;
    }

    @Override
    public OffLoopHost offLoopHost() {
        return offLoopWork();
    }

    private OffLoopWork offLoopWork() {
        if (work == null) {
            work = new OffLoopWork(this, srv, c);
        }
        return work;
    }

    /** Answers {@code 100 Continue} once, for an HTTP/1.1 request that asked and whose body is still to come. */
    private void sendContinue(RequestView req) {
        if (!continueSent && req.expectsContinue() && req.versionNumber() == 11) {
            continueSent = true;
            srv.encoder.encodeContinue(c);
        }
    }

    /** Answers {@code status} with {@code Connection: close}; nothing after the bad request is acted on. */
    private int reject(int status) {
        endTiming(status); // ops: a rejection after routing (413 from the head) is its route's response
        srv.metrics.rejected(status);
        if (dev.peregrine.jfr.PeregrineEvents.rejections()) {
            dev.peregrine.jfr.PeregrineEvents.rejected(status, dev.peregrine.http1.Status.reason(status), c.endpoint().remoteAddress());
        }
        if (srv.config.errorPage() == null) {
            srv.encoder.encodeError(status, c);
        } else { // the application's body (errorPage); the loop's response is free between handler calls
            ResponseView res = srv.response;
            res.reset();
            res.requestId(null); // no request of its own: not the previous one's id
            res.error(status);
            res.status(status); // a parser rejection keeps its status: the connection closes after it
            srv.encoder.encode(res, false, false, false, c);
        }
        c.closeAfterOutput();
        return STOP;
    }
}
