package dev.peregrine.loop;

import dev.peregrine.BlockingHandler;
import dev.peregrine.BodyListener;
import dev.peregrine.Handler;
import dev.peregrine.ServerConfig;
import dev.peregrine.StreamingHandler;
import dev.peregrine.buffer.BufferPool;
import dev.peregrine.http1.ChunkedDecoder;
import dev.peregrine.http1.HeadParser;
import dev.peregrine.http1.Methods;
import dev.peregrine.http1.OutputSink;
import dev.peregrine.http1.RequestView;
import dev.peregrine.http1.ResponseView;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The HTTP/1.1 engine of one connection, the same on every transport. It is driven by its loop
 * ({@link #onReadable}, {@link #onWritable}) and talks to the socket only through a
 * {@link SocketEndpoint}.
 *
 * <p><b>Input.</b> Bytes are read into the loop's shared read buffer and parsed there. Only when a
 * read ends inside a request are that request's bytes copied into a buffer lent by the pool
 * ({@code input}); later reads append to it until the request is complete. An idle connection holds
 * no buffer.
 *
 * <p><b>Output.</b> Responses to every request parsed from one read are encoded into the loop's
 * shared write buffer and leave in one write at the end of the batch ({@link #flush}). What the
 * socket does not take is kept in a lent buffer ({@code output}) and written when the socket is
 * writable; while more than {@code maxPendingOutput} bytes wait, the connection is not read.
 *
 * <pre>
 *            read             request complete           last response written
 *   OPEN ------------&gt; parse ------------------&gt; handle ---------------------&gt; OPEN
 *    |  bad request / Connection: close / HTTP/1.0
 *    v
 *   CLOSING (pending output flushes) --&gt; DRAINING (FIN sent; input discarded until EOF or
 *                                                  a byte budget) --&gt; CLOSED
 * </pre>
 * Draining instead of closing at once keeps the kernel from answering the client's unread bytes
 * with RST, which could destroy the error response before the client reads it.
 *
 * <p><b>Timeouts.</b> The connection is itself the {@link Timeout} node in its loop's wheel: it waits
 * for one thing at a time, so one node serves every phase ({@link #updateTimer} picks it after each
 * event; settings in {@code ServerConfig}).
 * <pre>
 *   phase   while                                   clock starts            on expiry
 *   IDLE    no request under way, nothing pending   last request answered   close
 *   HEAD    a request head is incomplete            its first byte          408, close
 *   BODY    a request body is incomplete            last byte received      408, close
 *   WRITE   output is pending                       last byte written       close
 *   DRAIN   DRAINING                                FIN sent                close
 *   BUSY    a request is off the loop (exchange,    -                       (not armed: the
 *           body in pieces, streamed body)                                  exchange's asyncTimeout)
 * </pre>
 * Progress within IDLE, BODY and WRITE only stores the time ({@code timerSince}); the wheel is touched
 * when the phase changes, and an expiry that finds the deadline moved re-arms for the rest. So a
 * keep-alive request costs one field store for its timeout, not a wheel operation.
 *
 * <p><b>Off the loop.</b> A request for a blocking handler, or whose handler called
 * {@code res.async()}, becomes an {@link Exchange}; a response body sent in pieces (a file, a
 * handler's stream) is a {@link BodySource}; a large request body streamed to a blocking handler is a
 * {@link StreamingBody}. While an exchange or a body source is in progress the connection handles no
 * further request: what arrives meanwhile waits in {@code input} (reading pauses once it holds more
 * than {@link #HOLD_LIMIT} bytes), so responses leave in request order. The hooks for this are marked
 * "off-loop hook" below; the logic lives in those classes.
 *
 * <p>Thread: the owning loop thread only.
 */
public final class HttpConnection extends Timeout implements OutputSink {
    private static final int OPEN = 0;
    private static final int CLOSING = 1;
    private static final int DRAINING = 2;
    private static final int CLOSED = 3;

    private static final int NEED_MORE = -1;
    private static final int STOP = -2;
    /** Bytes discarded after our FIN before the connection is closed regardless. */
    private static final int DRAIN_BUDGET = 256 * 1024;
    /** {@link #streamBody} leaves the request to the ordinary path. */
    private static final int NOT_STREAMED = -3;
    /** Bytes of pipelined input held while a request is off the loop before reading pauses. */
    static final int HOLD_LIMIT = 64 * 1024;

    /** Timer phases; see the class javadoc. NONE only when closed or just fired. */
    private static final int T_NONE = 0;
    private static final int T_IDLE = 1;
    private static final int T_HEAD = 2;
    private static final int T_BODY = 3;
    private static final int T_WRITE = 4;
    private static final int T_DRAIN = 5;
    private static final int T_BUSY = 6;

    private final LoopContext ctx;
    private final SocketEndpoint io;
    private final BufferPool pool;

    private int state = OPEN;
    /** Lent buffer holding an incomplete request at {@code [0, inputEnd)}; null when idle. */
    private ByteBuffer input;
    private int inputEnd;
    /** Lent buffer holding unsent bytes at {@code [outputStart, outputEnd)}; null when none. */
    private ByteBuffer output;
    private int outputStart;
    private int outputEnd;
    /** Bytes, from the request's start, needed before a Content-Length request is complete. */
    private int awaitBytes;
    /** Empty lines (CRLF) consumed since the last request line, across reads (RFC 9112 §2.2 bound). */
    private int emptyLines;
    /** Bytes of an incomplete head already searched for its end. */
    private int headScanned;
    private boolean continueSent;
    private boolean readPaused;
    /** writePending lifted the pause: requests held in {@code input} meanwhile wait to be processed. */
    private boolean resumedByDrain;
    private ChunkedDecoder chunked;
    private int drained;
    /** The request being handled off the loop; while set, no further request is handled. */
    private Exchange exchange;
    /** A response body being sent in pieces; while set, no further request is handled. */
    private BodySource bodyOut;
    /** Whether the connection closes once {@link #bodyOut} is sent. */
    private boolean closeAfterBody;
    /** A request body being streamed to an off-loop handler; while set, reads go to it. */
    private StreamingBody bodyIn;
    /** The peer sent FIN while a request was off the loop: answer what is held, then close. */
    private boolean peerClosed;
    /** Requests this connection may still serve; -1 for no limit. The one that brings it to 0 closes. */
    private int requestsLeft;
    private int timerPhase = T_NONE;
    /** When the current phase's clock started (see the class javadoc), loop clock milliseconds. */
    private long timerSince;

    public HttpConnection(LoopContext ctx, SocketEndpoint io) {
        this.ctx = ctx;
        this.io = io;
        this.pool = ctx.pool;
        int maxRequests = ctx.config.maxRequestsPerConnection();
        this.requestsLeft = maxRequests > 0 ? maxRequests : -1;
        ctx.metrics.accepted++;
        ctx.tick();
        updateTimer(false);
    }

    /** The socket has bytes (or EOF) to read. */
    public void onReadable() {
        if (state == DRAINING) {
            discardInput();
            return;
        }
        if (bodyIn != null && state == OPEN) { // off-loop hook: a streamed request body takes what arrives
            try {
                bodyIn.onReadable(io, ctx.readBuffer);
            } catch (IOException e) {
                close();
                return;
            }
            if (bodyIn != null || state != OPEN) {
                return;
            }
        }
        if (state != OPEN || readPaused) {
            if (state == CLOSING) {
                // Nothing more is read until our last response is out; a level-triggered selector
                // would otherwise report the peer's bytes again and again. startDraining turns it back on.
                io.readInterest(false);
            }
            return;
        }
        try {
            ByteBuffer buf;
            int n;
            if (input != null) {
                if (inputEnd == input.capacity()) {
                    if (input.capacity() >= pool.maxBufferSize()) {
                        reject(headScanned > 0 ? 431 : 413);
                        flush();
                        updateTimer(false);
                        return;
                    }
                    // Doubling, but never past what the largest request needs (and never int overflow).
                    int next = (int) Math.min(2L * input.capacity(), Math.max(awaitBytes, pool.maxBufferSize()));
                    input = pool.grow(input, 0, inputEnd, next);
                }
                input.limit(input.capacity()).position(inputEnd);
                n = io.read(input);
                if (n > 0) {
                    inputEnd += n;
                }
                buf = input;
            } else {
                buf = ctx.readBuffer;
                buf.clear();
                n = io.read(buf);
            }
            if (n < 0) {
                endOfInput();
                return;
            }
            if (n == 0) {
                return;
            }
            ctx.metrics.bytesIn += n;
            resumedByDrain = false;
            process(buf, 0, buf == input ? inputEnd : n);
            processHeld();
        } catch (IOException e) {
            close();
        }
    }

    /**
     * The peer sent FIN. A half-closed peer may still be reading (RFC 9112 §9.6 lets a client close
     * its sending side after its last request), so responses already queued are written first; the
     * connection closes once they are out. An incomplete request is dropped.
     */
    private void endOfInput() {
        if (exchange != null || bodyOut != null) { // off-loop hook: held requests are answered, then it closes
            peerClosed = true;
            io.readInterest(false);
            return;
        }
        if (headScanned > 0 && rejectHeldHead()) {
            return;
        }
        if (output == null) {
            close();
            return;
        }
        state = CLOSING;
        releaseInput();
        io.readInterest(false);
    }

    /**
     * At end of input, parses the incomplete head that arrived in pieces and was so far only searched
     * for its end ({@link HeadParser#findHeadEnd}): if what arrived is already invalid, it gets the
     * answer (400, 414, 431...) it would have had in one piece, so no split of the input changes the
     * outcome. Returns whether it answered.
     */
    private boolean rejectHeldHead() {
        int r = ctx.parser.parse(input, 0, inputEnd, ctx.request);
        if (r >= 0 || r == HeadParser.NEED_MORE) {
            return false;
        }
        ctx.tick();
        releaseInput();
        headScanned = 0;
        reject(-r);
        flush();
        updateTimer(false);
        return true;
    }

    /** The socket can take more of the pending output. */
    public void onWritable() {
        if (state == CLOSED) {
            return;
        }
        ctx.tick();
        try {
            if (!io.flushBuffered()) {
                return; // the endpoint's own bytes (TLS records) go first, even while draining
            }
        } catch (IOException e) {
            close();
            return;
        }
        if (state == DRAINING) {
            return;
        }
        boolean wasPaused = readPaused;
        writePending();
        if (bodyOut != null) { // off-loop hook: a body in pieces continues as the socket drains
            pumpBody(true);
            return;
        }
        if (wasPaused && !readPaused && state == OPEN && input != null) {
            resumedByDrain = false;
            process(input, 0, inputEnd); // requests that arrived while reading was paused
            processHeld();
        }
        updateTimer(false);
    }

    /**
     * Answers the requests held in {@code input} while reading was paused, when the pause was lifted
     * by the final flush of {@link #process} (after its loop had stopped at the pause): no
     * writability event follows then, and the peer may have nothing more to send.
     */
    private void processHeld() {
        while (resumedByDrain && !readPaused && state == OPEN && input != null) {
            resumedByDrain = false;
            process(input, 0, inputEnd);
        }
        resumedByDrain = false;
    }

    /**
     * Parses and answers every complete request in {@code [start, end)} of {@code buf}, keeps the
     * bytes of an incomplete one, and writes the batch of responses.
     */
    private void process(ByteBuffer buf, int start, int end) {
        ctx.tick();
        int pos = start;
        int answered = 0;
        while (pos < end && state == OPEN && !readPaused && exchange == null && (bodyOut == null || pumpBody(false))) {
            int r = handleOne(buf, pos, end);
            if (r == NEED_MORE) {
                break;
            }
            if (r == STOP) {
                pos = end;
                break;
            }
            pos = r;
            if (++answered % ctx.config.maxPipelinedRequests() == 0) {
                // A pipelined batch this long: go on only once the socket took the responses so far.
                flushBuffer();
                if (output != null && !readPaused) {
                    pauseReading();
                }
            }
        }
        if (state == OPEN) {
            keepLeftover(buf, pos, end);
            if (input != null && inputEnd > HOLD_LIMIT && !readPaused && (exchange != null || bodyOut != null)) {
                pauseReading(); // off-loop hook: enough pipelined input held; wait for the response
            }
        } else {
            releaseInput();
        }
        flush();
        if (bodyOut != null) {
            pumpBody(true);
        }
        updateTimer(answered > 0);
    }

    /** Handles the request starting at {@code pos}: returns where the next one starts, NEED_MORE or STOP. */
    private int handleOne(ByteBuffer b, int pos, int end) {
        if (awaitBytes > 0 && end - pos < awaitBytes) {
            return NEED_MORE;
        }
        if (headScanned == 0 && awaitBytes == 0 && (chunked == null || !chunked.active())) {
            // Empty lines before a request line are ignored (RFC 9112 §2.2), up to the parser's bound
            // counted across reads, so that no split of them changes the answer.
            int first = HeadParser.skipEmptyLines(b, pos, end);
            if (first >= pos) {
                emptyLines += (first - pos) / 2;
                if (emptyLines > HeadParser.MAX_EMPTY_LINES) {
                    return reject(400);
                }
                if (first == end) {
                    return end; // nothing but empty lines so far: none kept, the connection stays idle
                }
                emptyLines = 0; // a request line begins (the parser skips those lines again itself)
            }
        }
        HeadParser parser = ctx.parser;
        if (headScanned > 0 && end - pos <= parser.maxRequestLine()) {
            // A head arriving in pieces: look only for its end until it is there (see HeadParser).
            if (HeadParser.findHeadEnd(b, pos, pos + headScanned, end) == HeadParser.NEED_MORE) {
                headScanned = end - pos;
                return NEED_MORE;
            }
        }
        RequestView req = ctx.request;
        int headEnd = parser.parse(b, pos, end, req);
        if (headEnd == HeadParser.NEED_MORE) {
            headScanned = end - pos;
            return NEED_MORE;
        }
        if (headEnd < 0) {
            return reject(-headEnd);
        }
        headScanned = 0;
        int bodyStart;
        int bodyLength;
        int messageEnd;
        if (req.isChunked()) {
            if (chunked == null) {
                chunked = new ChunkedDecoder();
            }
            if (!chunked.active()) {
                chunked.start(headEnd - pos);
            }
            int r = chunked.decode(b, pos, end, ctx.config.maxBodySize(), ctx.config.maxHeadSize());
            if (r == ChunkedDecoder.NEED_MORE) {
                sendContinue(req);
                return NEED_MORE;
            }
            if (r < 0) {
                return reject(-r);
            }
            bodyStart = pos + chunked.bodyStartRel();
            bodyLength = chunked.decodedLength();
            messageEnd = pos + r;
        } else if (req.contentLength() > 0) {
            long length = req.contentLength();
            if (length > ctx.config.streamBodyThreshold()) { // off-loop hook: may stream to a blocking handler
                int r = streamBody(req, b, pos, headEnd, end, length);
                if (r != NOT_STREAMED) {
                    return r;
                }
            }
            if (length > ctx.config.maxBodySize()) {
                return reject(413); // answered from the head, before the body is read
            }
            int need = headEnd - pos + (int) length;
            if (end - pos < need) {
                awaitBytes = need;
                sendContinue(req);
                return NEED_MORE;
            }
            bodyStart = headEnd;
            bodyLength = (int) length;
            messageEnd = headEnd + bodyLength;
        } else {
            bodyStart = headEnd;
            bodyLength = 0;
            messageEnd = headEnd;
        }
        awaitBytes = 0;
        continueSent = false;
        req.setBody(b, bodyStart, bodyLength);
        dispatch(req);
        return messageEnd;
    }

    /** Runs the handler and encodes its response. */
    private void dispatch(RequestView req) {
        req.setRemoteAddress(io.remoteAddress());
        ResponseView res = ctx.response;
        res.reset();
        Handler h = ctx.router.resolve(req, ctx.paramStarts, ctx.paramEnds);
        if (h instanceof BlockingHandler) { // off-loop hook: runs on another thread, answered by Exchange
            exchange = Exchange.blocking(this, req, (BlockingHandler) h, -1);
            return;
        }
        runInline(h, req, res);
        if (res.special() != 0) { // off-loop hook: async(), sendFile() or stream()
            specialResponse(req, res);
            return;
        }
        boolean keepAlive = req.keepAlive() && !lastAllowed();
        ctx.metrics.requests++;
        ctx.encoder.encode(res, req.methodId() == Methods.HEAD, keepAlive, req.versionNumber() == 10, this);
        if (!keepAlive) {
            state = CLOSING; // nothing sent after this request is acted on
        }
    }

    /** Off-loop hook: an inline handler called {@code async()}, {@code sendFile()} or {@code stream()}. */
    private void specialResponse(RequestView req, ResponseView res) {
        Exchange x = ctx.offLoop.takePending();
        if (x != null) {
            exchange = x;
            return;
        }
        boolean http10 = req.versionNumber() == 10;
        boolean keepAlive = BodySource.keepAlive(res, req.keepAlive() && !lastAllowed(), http10);
        ctx.metrics.requests++;
        bodyOut = BodySource.start(res, req, req.methodId() == Methods.HEAD, keepAlive, http10, this);
        closeAfterBody = !keepAlive;
    }

    /**
     * Off-loop hook: a Content-Length body above the stream threshold goes to a blocking handler as it
     * arrives ({@link StreamingBody}); returns {@link #NOT_STREAMED} for other handlers.
     */
    private int streamBody(RequestView req, ByteBuffer b, int pos, int headEnd, int end, long length) {
        req.setRemoteAddress(io.remoteAddress());
        Handler h = ctx.router.resolve(req, ctx.paramStarts, ctx.paramEnds);
        boolean blocking = h instanceof BlockingHandler;
        if (!blocking && !(h instanceof StreamingHandler)) {
            return NOT_STREAMED;
        }
        if (length > ctx.config.maxStreamedBodySize()) {
            return reject(413); // answered from the head, before the body is read
        }
        int have = (int) Math.min(end - headEnd, length);
        if (have < length) {
            sendContinue(req);
        }
        awaitBytes = 0;
        continueSent = false;
        req.setBody(b, headEnd, 0);
        if (blocking) {
            exchange = Exchange.blocking(this, req, (BlockingHandler) h, length);
            bodyIn = exchange.body();
        } else {
            BodyListener listener = callStreamingHandler(req, h);
            Exchange x = ctx.offLoop.takePending();
            if (x == null) { // answered at once: the rest of the body is not read
                ResponseView res = ctx.response;
                boolean http10 = req.versionNumber() == 10;
                ctx.metrics.requests++;
                if (res.special() != 0) {
                    bodyOut = BodySource.start(res, req, req.methodId() == Methods.HEAD, false, http10, this);
                    closeAfterBody = true;
                    StreamingBody discard = new StreamingBody(this, null, length, null, true);
                    bodyIn = discard;
                    discard.feed(b, headEnd, have);
                    return headEnd + have;
                }
                ctx.encoder.encode(res, req.methodId() == Methods.HEAD, false, http10, this);
                state = CLOSING;
                return STOP;
            }
            exchange = x;
            bodyIn = new StreamingBody(this, x, length, listener, true);
            x.attachBody(bodyIn);
        }
        bodyIn.feed(b, headEnd, have);
        return headEnd + have;
    }

    /** Runs {@code h} on the loop; an exception becomes a 500 (logged once) and the loop carries on. */
    private void runInline(Handler h, RequestView req, ResponseView res) {
        ctx.offLoop.current = this;
        ctx.enterHandler(h);
        try {
            h.handle(req, res);
        } catch (Throwable t) {
            ctx.handlerFailed(req, t);
            ctx.offLoop.handlerThrew();
            res.reset();
            res.error(500);
        } finally {
            ctx.exitHandler();
        }
    }

    /** Off-loop hook: runs a {@code Handlers.streaming} handler on the head of a streamed body. */
    private BodyListener callStreamingHandler(RequestView req, Handler h) {
        ResponseView res = ctx.response;
        res.reset();
        req.streamInline();
        runInline(h, req, res);
        return req.takeBodyListener();
    }

    /**
     * Counts a response against {@code maxRequestsPerConnection} (and the one request a shutdown lets
     * finish), whatever ran its handler (inline here, off the loop in {@link Exchange}); true when it is
     * the last the connection may serve.
     */
    boolean lastAllowed() {
        return requestsLeft > 0 && --requestsLeft == 0;
    }

    /** Answers {@code 100 Continue} once, for an HTTP/1.1 request that asked and whose body is still to come. */
    private void sendContinue(RequestView req) {
        if (!continueSent && req.expectsContinue() && req.versionNumber() == 11) {
            continueSent = true;
            ctx.encoder.encodeContinue(this);
        }
    }

    /** Answers {@code status} with {@code Connection: close}; nothing after the bad request is acted on. */
    private int reject(int status) {
        ctx.metrics.rejected(status);
        ctx.encoder.encodeError(status, this);
        state = CLOSING;
        return STOP;
    }

    /** Keeps the unparsed bytes {@code [pos, end)} of {@code buf} in {@code input}, or frees it if none. */
    private void keepLeftover(ByteBuffer buf, int pos, int end) {
        if (pos == end) {
            releaseInput();
            awaitBytes = 0;
            headScanned = 0;
            return;
        }
        boolean decoding = chunked != null && chunked.active();
        int keep = decoding ? chunked.compactedLength(pos, end) : end - pos;
        // Memory follows the bytes that arrived, not the Content-Length a client announced (a head
        // alone must not reserve megabytes); onReadable grows the buffer as the body comes in.
        int want = Math.max(Math.min(awaitBytes, ctx.config.readBufferSize()), keep + 1);
        if (buf == input && input.capacity() >= want) {
            if (decoding) {
                inputEnd = chunked.compactInto(input, pos, end, input);
            } else if (pos > 0) {
                input.put(0, input, pos, keep);
                inputEnd = keep;
            }
            return;
        }
        ByteBuffer dst = pool.acquire(want);
        if (decoding) {
            inputEnd = chunked.compactInto(buf, pos, end, dst);
        } else {
            dst.put(0, buf, pos, keep);
            inputEnd = keep;
        }
        if (buf == input) {
            pool.release(input);
        }
        input = dst;
    }

    private void releaseInput() {
        if (input != null) {
            pool.release(input);
            input = null;
            inputEnd = 0;
        }
    }

    @Override
    public ByteBuffer out() {
        return ctx.writeBuffer;
    }

    @Override
    public void drain() {
        flushBuffer();
    }

    /** Writes the batch; then, if closing and nothing is pending, starts draining. */
    private void flush() {
        flushBuffer();
        if (state == CLOSING && output == null && exchange == null && bodyOut == null) {
            startDraining();
        }
    }

    private void flushBuffer() {
        ByteBuffer out = ctx.writeBuffer;
        if (out.position() == 0) {
            return;
        }
        if (state == CLOSED || state == DRAINING) {
            out.clear();
            return;
        }
        out.flip();
        try {
            if (output == null) {
                int n = io.write(out);
                ctx.metrics.bytesOut += n;
                if (out.hasRemaining()) {
                    stash(out);
                    io.writeInterest(true);
                }
            } else {
                stash(out);
                writePending();
            }
        } catch (IOException e) {
            out.clear();
            close();
            return;
        }
        out.clear();
        if (output != null && outputEnd - outputStart > ctx.config.maxPendingOutput() && !readPaused) {
            pauseReading(); // backpressure: stop reading until the peer takes its responses
        }
    }

    /** Stops reading until the pending output drains or the request off the loop is answered. */
    private void pauseReading() {
        readPaused = true;
        ctx.metrics.readPauses++;
        io.readInterest(false);
    }

    /** Appends the remaining bytes of {@code src} to the pending output. */
    private void stash(ByteBuffer src) {
        int n = src.remaining();
        if (output == null) {
            output = pool.acquire(n);
            outputStart = 0;
            outputEnd = 0;
        }
        // writePending left the limit at the old end; absolute puts are bounded by the limit.
        output.limit(output.capacity());
        if (output.capacity() - outputEnd < n) {
            int pending = outputEnd - outputStart;
            if (pending + n <= output.capacity()) {
                output.put(0, output, outputStart, pending);
            } else {
                output = pool.grow(output, outputStart, pending, pending + n);
            }
            outputStart = 0;
            outputEnd = pending;
        }
        output.put(outputEnd, src, src.position(), n);
        outputEnd += n;
        src.position(src.limit());
    }

    private void writePending() {
        if (output == null) {
            return;
        }
        try {
            output.limit(outputEnd).position(outputStart);
            int n = io.write(output);
            ctx.metrics.bytesOut += n;
            outputStart += n;
            if (n > 0) {
                timerSince = ctx.nowMillis; // progress: the write timeout starts again
            }
        } catch (IOException e) {
            close();
            return;
        }
        if (outputStart == outputEnd) {
            pool.release(output);
            output = null;
            io.writeInterest(false);
            if (state == CLOSING && exchange == null && bodyOut == null) {
                startDraining();
            } else if (readPaused && state == OPEN) {
                // Resumed here, wherever the output drained: also mid-batch, when no OP_WRITE follows.
                readPaused = false;
                resumedByDrain = true;
                io.readInterest(true);
            }
        } else {
            io.writeInterest(true);
        }
    }

    private void startDraining() {
        releaseInput();
        state = DRAINING;
        drained = 0;
        io.shutdownOutput();
        io.readInterest(true);
    }

    private void discardInput() {
        ByteBuffer buf = ctx.readBuffer;
        try {
            while (true) {
                buf.clear();
                int n = io.read(buf);
                if (n < 0) {
                    close();
                    return;
                }
                if (n == 0) {
                    return;
                }
                drained += n;
                if (drained > DRAIN_BUDGET) {
                    close();
                    return;
                }
            }
        } catch (IOException e) {
            close();
        }
    }

    /**
     * Starts a graceful close from the loop (server shutdown): an idle connection closes now; a
     * request partly received is finished and answered with {@code Connection: close} (the header and
     * body timeouts and the grace bound it); one being answered (response being written, or off the
     * loop) closes once its response is out.
     */
    public void shutdown() {
        if (state != OPEN) {
            return;
        }
        boolean answering = output != null || exchange != null || bodyOut != null || bodyIn != null;
        if (!answering && input == null) {
            close();
            return;
        }
        if (answering) {
            state = CLOSING;
            releaseInput();
        } else {
            requestsLeft = 1;
        }
        updateTimer(false);
    }

    /** Whether the connection is closed. */
    public boolean isClosed() {
        return state == CLOSED;
    }

    /** Closes at once and returns every lent buffer. Idempotent. */
    public void close() {
        if (state == CLOSED) {
            return;
        }
        state = CLOSED;
        ctx.timers.cancel(this);
        timerPhase = T_NONE;
        releaseInput();
        if (exchange != null) { // off-loop hook: the handler learns through its streams
            exchange.connectionClosed();
        }
        if (bodyOut != null) {
            bodyOut.abort();
            bodyOut = null;
        }
        if (bodyIn != null) {
            bodyIn.abort();
            bodyIn = null;
        }
        if (output != null) {
            pool.release(output);
            output = null;
        }
        if (chunked != null) {
            chunked.reset();
        }
        ctx.metrics.closed++;
        io.close();
    }

    // ---- off-loop hooks: called by Exchange, StreamingBody, ChunkedBodyWriter, FileBody (loop thread) ----

    LoopContext context() {
        return ctx;
    }

    SocketEndpoint endpoint() {
        return io;
    }

    Exchange exchange() {
        return exchange;
    }

    BodySource bodyOut() {
        return bodyOut;
    }

    StreamingBody bodyIn() {
        return bodyIn;
    }

    boolean isOpen() {
        return state == OPEN;
    }

    /** Unsent bytes kept for this connection. */
    int pendingOutput() {
        return output == null ? 0 : outputEnd - outputStart;
    }

    int maxPendingOutput() {
        return ctx.config.maxPendingOutput();
    }

    void countIn(long n) {
        ctx.metrics.bytesIn += n;
    }

    void countOut(long n) {
        ctx.metrics.bytesOut += n;
    }

    /** The streamed request body {@code b} has arrived whole (or been discarded). */
    void bodyInEnded(StreamingBody b) {
        if (bodyIn == b) {
            bodyIn = null;
        }
    }

    /** The off-loop request's response is encoded; carry on with the requests that waited. */
    void exchangeDone(boolean keepAlive) {
        exchange = null;
        if (bodyIn != null && bodyIn.complete()) {
            bodyIn = null;
        }
        if (!keepAlive && state == OPEN) {
            state = CLOSING;
        }
        resume();
    }

    /** The head is encoded; {@code body} follows in pieces, then the connection carries on (or closes). */
    void startBody(BodySource body, boolean keepAlive) {
        exchange = null;
        bodyOut = body;
        closeAfterBody = !keepAlive;
    }

    /** Moves the body in progress on; when it is all handed over, carries on. Returns whether none is left. */
    void pumpBody() {
        pumpBody(true);
    }

    private boolean pumpBody(boolean resumeAfter) {
        BodySource b = bodyOut;
        if (b == null) {
            return true;
        }
        if (state == CLOSED || state == DRAINING) {
            return false;
        }
        boolean done;
        try {
            flushBuffer(); // the head and earlier responses go first
            if (state == CLOSED) {
                return false;
            }
            done = b.pump(this);
            flushBuffer();
        } catch (IOException e) {
            close(); // the head has left: the client sees a truncated message
            return false;
        }
        if (!done || state == CLOSED) {
            return false;
        }
        bodyOut = null;
        if (output == null) {
            io.writeInterest(false);
        }
        if (closeAfterBody && state == OPEN) {
            state = CLOSING;
        }
        if (resumeAfter) {
            resume();
        }
        updateTimer(false);
        return true;
    }

    private void resume() {
        ctx.tick();
        if (state == OPEN && exchange == null && bodyOut == null) {
            if (readPaused && output == null) {
                readPaused = false;
                io.readInterest(!peerClosed);
            }
            if (input != null && !readPaused) {
                process(input, 0, inputEnd);
            }
            if (peerClosed && state == OPEN && exchange == null && bodyOut == null) {
                state = CLOSING; // every complete request the peer sent before its FIN is answered
                releaseInput();
            }
        }
        flush();
        updateTimer(false);
    }

    /**
     * Puts the connection's timer in the phase its state calls for (see the class javadoc): a new
     * phase arms the wheel; progress in the same phase only moves {@code timerSince}.
     *
     * @param answered whether a request was answered since the last call (restarts the HEAD clock for
     *                 the next request, which began in the same read)
     */
    private void updateTimer(boolean answered) {
        int phase;
        if (state == CLOSED) {
            return;
        } else if (state == DRAINING) {
            phase = T_DRAIN;
        } else if (output != null) {
            phase = T_WRITE;
        } else if (exchange != null || bodyOut != null || bodyIn != null) {
            phase = T_BUSY;
        } else if (input == null) {
            phase = T_IDLE;
        } else if (awaitBytes > 0 || (chunked != null && chunked.active())) {
            phase = T_BODY;
        } else {
            phase = T_HEAD;
        }
        long now = ctx.nowMillis;
        if (phase == T_BUSY) {
            ctx.timers.cancel(this); // the exchange's own timer (asyncTimeout) bounds this wait
            timerPhase = T_BUSY;
            return;
        }
        if (phase != timerPhase || (answered && phase == T_HEAD)) {
            timerPhase = phase;
            timerSince = now;
            ctx.timers.schedule(this, phaseTimeout(phase), now);
        } else if (phase == T_IDLE || phase == T_BODY) {
            timerSince = now;
        }
    }

    private long phaseTimeout(int phase) {
        ServerConfig c = ctx.config;
        switch (phase) {
            case T_HEAD:
                return c.headerTimeoutMillis();
            case T_BODY:
                return c.bodyTimeoutMillis();
            case T_WRITE:
                return c.writeTimeoutMillis();
            case T_DRAIN:
                return c.drainTimeoutMillis();
            default:
                return c.idleTimeoutMillis();
        }
    }

    /** The wheel found this connection's deadline passed, or moved by progress since it was armed. */
    @Override
    protected void onTimeout() {
        if (state == CLOSED || timerPhase == T_BUSY || timerPhase == T_NONE) {
            return;
        }
        long now = ctx.nowMillis;
        long deadline = timerSince + phaseTimeout(timerPhase);
        if (now < deadline) {
            ctx.timers.schedule(this, deadline - now, now);
            return;
        }
        int phase = timerPhase;
        timerPhase = T_NONE;
        LoopMetrics m = ctx.metrics;
        switch (phase) {
            case T_HEAD:
            case T_BODY:
                m.timeouts[phase == T_HEAD ? LoopMetrics.TIMEOUT_HEADER : LoopMetrics.TIMEOUT_BODY]++;
                // RFC 9110 §15.5.9: 408 when the server would not wait any longer; then close.
                ctx.tick();
                releaseInput();
                awaitBytes = 0;
                headScanned = 0;
                if (chunked != null) {
                    chunked.reset();
                }
                reject(408);
                flush();
                updateTimer(false);
                break;
            case T_WRITE:
                m.timeouts[LoopMetrics.TIMEOUT_WRITE]++;
                close();
                break;
            case T_DRAIN:
                m.timeouts[LoopMetrics.TIMEOUT_DRAIN]++;
                close();
                break;
            default:
                m.timeouts[LoopMetrics.TIMEOUT_IDLE]++;
                close();
                break;
        }
    }
}
