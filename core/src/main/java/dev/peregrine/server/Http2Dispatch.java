package dev.peregrine.server;

import dev.peregrine.Handler;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.h2.Http2Connection;
import dev.peregrine.h2.Http2Loop;
import dev.peregrine.h2.PendingStream;
import dev.peregrine.h2.StreamDispatch;
import dev.peregrine.http1.Methods;
import dev.peregrine.loop.Connection;
import dev.peregrine.offloop.BlockingHandler;
import dev.peregrine.offloop.BodySource;
import dev.peregrine.offloop.Exchange;
import dev.peregrine.offloop.IncomingBody;
import dev.peregrine.offloop.InlineSite;
import dev.peregrine.offloop.OffLoopHost;
import dev.peregrine.offloop.StreamingHandler;

/**
 * The server's side of an HTTP/2 stream on one loop: the same dispatch {@link Http1ServerProtocol}
 * gives a request (remote address, tracer, router with its filters, the inline handler with the
 * watchdog's marks and the same failure answers, compression, the access log, the request-duration
 * histograms), run on the request view {@code h2.Http2Responder} filled from the stream. One per
 * {@link ServerLoop}, made at its first HTTP/2 connection.
 *
 * <p><b>Handler kinds over HTTP/2</b>:
 * <pre>
 *   inline handler, in-memory bodies   answered at once (ANSWERED)
 *   blocking route (Execution.BLOCKING)  an Exchange on the blocking executor, as over HTTP/1.1;
 *   inline handler calling res.async()   the answer comes back through its Http2StreamWork (LATER),
 *                                        the connection's other streams are served meanwhile
 *   res.sendFile (one range, any size) DATA read from the file a frame at a time as the peer's
 *   res.stream (a BodyProducer)        windows and the socket allow; a producer pulled likewise
 *                                      (h2.Http2Responder), not compressed
 *   res.outputStream (blocking, async)  the handler writes into a bounded ring (offloop.PipedOutput),
 *                                      blocking while it is full; the stream pulls it likewise
 *   several ranges (multipart/byteranges)  the part heads and the ranges, read likewise
 *   a content-length above              routed at HEADERS (dispatchStreamed), as HTTP/1.1 routes it at
 *   streamBodyThreshold or none, to a   the head: DATA feeds an offloop.IncomingBody (the blocking
 *   blocking or Handlers.streaming route handler's bodyStream(), the streaming handler's BodyListener
 *                                      on the loop) through Http2StreamWork; the stream window reopens
 *                                      only as the handler consumes (backpressure); 413 from the head
 *                                      above maxStreamedBodySize
 *   Handlers.streaming, smaller body   inline, the body whole (onBody hands it over at once)
 * </pre>
 *
 * <p>Thread: the loop thread.
 */
public final class Http2Dispatch implements StreamDispatch, InlineSite {
    private final ServerLoop srv;
    private final Http2Loop loop = new Http2Loop(this);
    private Connection current;
    private Http2Connection currentH2;
    private int currentStream;
    /** The host an {@code async()} of the running handler made, or null. */
    private Http2StreamWork pendingWork;

    Http2Dispatch(ServerLoop srv) {
        this.srv = srv;
    }

    @Override
    public RequestView request() {
        return srv.request;
    }

    @Override
    public ResponseView response() {
        return srv.response;
    }

    @Override
    public int dispatch(Connection c, Http2Connection h2, int streamId, RequestView req, ResponseView res) {
        current = c;
        currentH2 = h2;
        currentStream = streamId;
        pendingWork = null;
        req.remoteFrom(c.endpoint()); // the address is made only if the handler asks
        res.reset();
        if (srv.tracer != null) {
            srv.tracer.begin(req, res);
        }
        Handler h = srv.router.resolve(req, srv.paramStarts, srv.paramEnds);
        // A streaming route whose body came whole (END_STREAM on its HEADERS, or a content-length under streamBodyThreshold)
        // runs inline as over HTTP/1.1: onBody hands the whole body over at once.
        boolean timing = srv.durations != null || srv.slowHandlers;
        long since = timing ? System.nanoTime() : 0;
        if (h instanceof BlockingHandler) { // off-loop hook: runs on another thread, answered through the work
            Http2StreamWork work = new Http2StreamWork(srv, this, PendingStream.of(h2, streamId));
            work.timing(timing, since, req);
            work.started(Exchange.blocking(work, req, (BlockingHandler) h, -1));
            return LATER;
        }
        runInline(h, req, res);
        Exchange x = srv.offLoop.takePending();
        if (x != null) { // the handler called async(): its completion answers through the work
            Http2StreamWork work = pendingWork;
            pendingWork = null;
            work.started(x);
            work.timing(timing, since, req);
            return LATER;
        }
        int outcome = finish(req, res, req.methodId() == Methods.HEAD);
        if (timing && outcome == ANSWERED) { // a refused stream is answered over HTTP/1.1 (and timed there)
            RequestDurations.requestDone(srv, RequestDurations.key(req.routeId(), req.methodId(), 0), res.statusCode(),
                    System.nanoTime() - since);
        }
        return outcome;
    }

    /** Runs {@code h} on the loop; an exception becomes the server's failure answer, as over HTTP/1.1. */
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

    /**
     * A body above {@code streamBodyThreshold}, or without {@code content-length} ({@code length} -1),
     * still to come: routed at the stream's HEADERS, as
     * {@code Http1ServerProtocol.streamBody} routes it at the head. A blocking route gets an
     * {@link Exchange} whose {@code bodyStream()} is fed from DATA; a streaming route's handler runs now
     * and its {@code BodyListener} is fed from DATA on the loop; both through an {@link IncomingBody}
     * that {@link Http2StreamWork} offers the DATA to. Above {@code maxStreamedBodySize}: 413 from the
     * head; without a length, once the running total passes it (the handler's body stream throws
     * {@code RequestBodyException}, a listener's exchange is answered 413, then RST_STREAM NO_ERROR). A streaming handler that answers at once (no {@code async()}): its answer goes, the rest of
     * the body is refused (the stream is reset with NO_ERROR once answered, RFC 9113 §8.1).
     */
    @Override
    public int dispatchStreamed(Connection c, Http2Connection h2, int streamId, RequestView req, ResponseView res, long length) {
        req.remoteFrom(c.endpoint()); // the address is made only if the handler asks
        Handler h = srv.router.resolve(req, srv.paramStarts, srv.paramEnds);
        boolean blocking = h instanceof BlockingHandler;
        if (!blocking && !(h instanceof StreamingHandler)) {
            return NOT_STREAMED; // gathered in memory (maxBodySize) and dispatched at END_STREAM
        }
        current = c;
        currentH2 = h2;
        currentStream = streamId;
        pendingWork = null;
        res.reset();
        if (srv.tracer != null) {
            srv.tracer.begin(req, res);
        }
        boolean timing = srv.durations != null || srv.slowHandlers;
        long since = timing ? System.nanoTime() : 0;
        if (length > srv.config.maxStreamedBodySize()) { // answered from the head, before the body is read
            srv.metrics.rejected(413);
            res.error(413);
            if (timing) {
                RequestDurations.requestDone(srv, RequestDurations.key(req.routeId(), req.methodId(), 0), 413, System.nanoTime() - since);
            }
            return ANSWERED;
        }
        if (blocking) {
            Http2StreamWork work = new Http2StreamWork(srv, this, PendingStream.of(h2, streamId));
            work.timing(timing, since, req);
            // ended by END_STREAM even with a content-length (BodyFeed checks it): trailers may come after the last byte
            Exchange x = Exchange.blocking(work, req, (BlockingHandler) h, IncomingBody.UNKNOWN_LENGTH);
            work.started(x);
            work.receive(x.body());
            return LATER;
        }
        req.expectListener();
        runInline(h, req, res);
        dev.peregrine.BodyListener listener = req.takeBodyListener();
        Exchange x = srv.offLoop.takePending();
        if (x == null) { // answered at once: the rest of the body is refused
            pendingWork = null;
            int outcome = finish(req, res, req.methodId() == Methods.HEAD);
            if (timing && outcome == ANSWERED) {
                RequestDurations.requestDone(srv, RequestDurations.key(req.routeId(), req.methodId(), 0), res.statusCode(),
                        System.nanoTime() - since);
            }
            return outcome;
        }
        Http2StreamWork work = pendingWork;
        pendingWork = null;
        work.started(x);
        work.timing(timing, since, req);
        IncomingBody body = new IncomingBody(work, x, IncomingBody.UNKNOWN_LENGTH, listener, true); // as above
        x.attachBody(body);
        work.receive(body);
        return LATER;
    }

    @Override
    public long streamBodyThreshold() {
        return srv.config.streamBodyThreshold();
    }

    /**
     * The handler's response {@code res} to {@code req} (inline, or from off the loop) is ready: its
     * file (if any) is opened, it is counted, compressed and traced; returns {@link #ANSWERED}, or
     * {@link #HTTP_1_1_REQUIRED} for a body kind no stream carries.
     */
    int finish(RequestView req, ResponseView res, boolean head) {
        if (res.special() == ResponseView.FILE) {
            // one range, or several with their part heads: DATA read from the file as the windows allow (h2.Http2Responder)
            if (BodySource.openFile(res) && res.special() == ResponseView.FILE) {
                srv.metrics.requests++;
                srv.responding(req, res, head); // never compressed, as over HTTP/1.1
                return ANSWERED;
            } // gone since the handler's call: res is now the 404 (or 500), answered below
        }
        if (res.special() == ResponseView.PRODUCER) { // pulled a frame at a time (h2.Http2Responder), not compressed
            srv.metrics.requests++;
            srv.responding(req, res, head);
            return ANSWERED;
        }
        if (res.special() != 0) { // a body kind no stream carries (none is known): never half-answered
            res.reset();
            return HTTP_1_1_REQUIRED;
        }
        srv.metrics.requests++;
        if (srv.compressor != null) {
            srv.compressor.apply(req, res, head);
        }
        srv.responding(req, res, head);
        return ANSWERED;
    }

    @Override
    public byte[] dateLine() {
        return srv.encoder.dateLine();
    }

    @Override
    public Http2Loop loop() {
        return loop;
    }

    @Override
    public long maxBodySize() {
        return srv.config.maxBodySize();
    }

    @Override
    public long idleTimeoutMillis() {
        return srv.config.idleTimeoutMillis();
    }

    @Override
    public long bodyTimeoutMillis() {
        return srv.config.bodyTimeoutMillis();
    }

    // ---------------------------------------------------------------- InlineSite (an inline handler's res.async())

    @Override
    public Connection connection() {
        return current;
    }

    /** The running handler called {@code async()}: its stream's host, made now. */
    @Override
    public OffLoopHost offLoopHost() {
        if (pendingWork == null) {
            pendingWork = new Http2StreamWork(srv, this, PendingStream.of(currentH2, currentStream));
        }
        return pendingWork;
    }

    /** The running inline handler's interim response: HEADERS on its stream, ahead of the final one. */
    @Override
    public void interim(int status, String[] headers) {
        PendingStream.interimInline(currentH2, currentStream, status, headers);
    }
}
