package dev.peregrine.offloop;

import dev.peregrine.Completion;
import dev.peregrine.Request;
import dev.peregrine.Response;
import dev.peregrine.exchange.RequestCopy;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseOwner;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.Methods;
import dev.peregrine.http1.ResponseEncoder;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Timeout;

import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One request handled off the loop: by a blocking handler ({@link #blocking}) or by a handler that
 * called {@link Response#async()} ({@link OffLoop#startAsync}). At hand-off the request — head and
 * in-memory body — is copied out of the loop's read buffer into a buffer of the loop's pool, and the
 * handler gets its own {@link RequestView} over the copy and its own {@link ResponseView}. The copy
 * goes back to the pool, on the loop, once the handler has ended and the loop no longer needs it.
 *
 * <pre>
 *              complete()/fail()/blocking handler returns           loop: run()
 *   RUNNING ------------------------------------------------&gt; COMPLETED -----&gt; response written,
 *      |                                                                     connection resumes
 *      | loop: timeout (503, or close once streaming; a blocking handler's thread is interrupted)
 *      |       / handler threw after async()
 *      v
 *   CANCELLED --- complete()/fail() later (or a queued blocking task that then skips its handler):
 *                 returns false, copy released ---&gt; ENDED
 * </pre>
 * The connection side is an {@link OffLoopHost}: an HTTP/1.1 connection, whose next requests wait,
 * or one HTTP/2 stream ({@link StreamHost}), which gets the answer in frames while the connection's
 * other streams go on.
 * A streamed response ({@link ChunkedBodyWriter}) commits its head on the loop with its first chunk;
 * from then on the connection belongs to the writer's body, and a failure closes the connection.
 *
 * <p>Thread: {@link Completion} methods and the handler's use of request/response on any one thread
 * at a time; everything else on the owning loop. The state word, and {@code runner} under
 * {@code runLock}, are the only fields both sides write.
 */
public final class Exchange extends Timeout implements Completion, ResponseOwner, Runnable {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    private static final int RUNNING = 0;
    private static final int COMPLETED = 1;
    private static final int CANCELLED = 2;
    private static final int ENDED = 3;

    private final AtomicInteger state = new AtomicInteger(RUNNING);
    private final HttpLoop srv;
    private final LoopContext ctx;
    private final EventLoop loop;
    private final ResponseView response;
    private final Runnable blockingTask = this::runBlocking;
    private OffLoopHost conn;
    private RequestView request;
    private boolean head;
    private ByteBuffer copy;
    /** Whether {@link #copy} was lent by the loop's pool (else it is heap memory the GC reclaims). */
    private boolean copyPooled;
    /** The blocking handler to run, or null for an exchange started by {@code res.async()}. */
    private BlockingHandler handler;
    /** After-hooks deferred from a handed-over inline response ({@link #deferAfter}); loop only; null when none. */
    private java.util.List<dev.peregrine.Handler> afterHooks;
    private volatile Throwable error;
    private volatile ChunkedBodyWriter writer;
    /** {@code res.outputStream()} on a stream host (HTTP/2), or null. */
    private volatile PipedOutput pipe;
    /** Loop: the pipe's head went to the stream ({@link #commitPipe}): the answer is under way. */
    private boolean pipeAnswered;
    private IncomingBody body;
    /** This exchange's deadline: the blocking handler's timeout, else {@code asyncTimeout}. */
    private long timeoutMillis;
    /**
     * The thread running the blocking handler, while it runs; guarded by {@link #runLock}, so that the
     * timeout interrupts only that thread and only while it still runs this handler (see {@link #interruptRunner}).
     */
    private Thread runner;
    private final Object runLock = new Object();

    private Exchange(HttpLoop srv, RequestView view) {
        this.srv = srv;
        this.ctx = srv.loop();
        this.loop = ctx.eventLoop();
        this.response = new ResponseView(this);
        this.request = view;
    }

    /**
     * Loop: an exchange for {@code req}, whose handler called {@code res.async()}. Never reused. Its
     * copy of the request is heap memory, not pooled: a completion may be kept by other threads for
     * as long as they like, even past the timeout or a handler that threw, and must neither pin a
     * pooled buffer nor ever see memory the pool lent to another connection.
     */
    static Exchange async(OffLoopHost conn, RequestView req) {
        Exchange x = new Exchange(conn.httpLoop(), null);
        x.begin(conn, req, false, conn.httpLoop().config().asyncTimeoutMillis());
        return x;
    }

    /** Loop: copies {@code req} (its body already set) into pooled or heap memory and arms the timeout. */
    private void begin(OffLoopHost conn, RequestView req, boolean pooled, long timeoutMillis) {
        this.timeoutMillis = timeoutMillis;
        this.conn = conn;
        this.copyPooled = pooled;
        this.copy = pooled ? ctx.pool().acquire(RequestCopy.length(req))
                : ByteBuffer.allocate(RequestCopy.length(req)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        this.request = request == null ? RequestCopy.detach(req, copy, 0) : RequestCopy.into(req, copy, 0, request);
        this.head = req.methodId() == Methods.HEAD;
        response.requestId(request.requestId());
        state.set(RUNNING);
        ctx.timers().schedule(this, timeoutMillis, System.currentTimeMillis());
    }

    /**
     * Loop: hands {@code req} to blocking handler {@code h} on the server's executor; with
     * {@code streamedLength >= 0} or {@link IncomingBody#UNKNOWN_LENGTH} its body streams ({@link IncomingBody}).
     * Exchanges of plain blocking requests are reused (see {@link #recyclable}), so a hand-off
     * allocates little beyond the thread that runs it.
     */
    public static Exchange blocking(OffLoopHost conn, RequestView req, BlockingHandler h, long streamedLength) {
        HttpLoop srv = conn.httpLoop();
        LoopContext ctx = srv.loop();
        Exchange x = srv.offLoop().reusableExchange();
        if (x == null) {
            x = new Exchange(srv, new RequestView(srv.config().maxHeaderCount()));
        }
        x.begin(conn, req, true, h.timeoutMillis() > 0 ? h.timeoutMillis() : srv.config().asyncTimeoutMillis());
        x.handler = h;
        if (streamedLength >= 0 || streamedLength == IncomingBody.UNKNOWN_LENGTH) {
            x.body = new IncomingBody(conn, x, streamedLength);
            x.request.setIncomingBody(x.body);
        }
        try {
            srv.blockingExecutor().execute(x.blockingTask);
        } catch (RejectedExecutionException e) {
            x.response.error(503); // the server is closing
            x.state.set(COMPLETED);
            x.loop.execute(x);
        }
        return x;
    }

    private void runBlocking() {
        BlockingHandler h = handler;
        Thread me = Thread.currentThread();
        synchronized (runLock) {
            if (state.get() != RUNNING) { // answered 503 while queued for a thread: the handler never runs
                late();
                return;
            }
            runner = me;
        }
        Throwable failure = null;
        try {
            h.delegate().handle(request, response);
        } catch (Throwable t) {
            failure = t;
        }
        synchronized (runLock) {
            runner = null;
        }
        // An interrupt from the timeout may have come after the handler's last blocking call: it must
        // not reach the next task this (pooled) thread runs. None comes later (runner is cleared under
        // runLock); ThreadPoolExecutor clears the flag between tasks too, this keeps it so for any executor.
        Thread.interrupted();
        if (failure != null) {
            fail(failure);
        } else if ((response.special() & ResponseView.ASYNC) == 0) {
            complete();
        }
    }

    /**
     * Loop, at the timeout: interrupts the blocking handler's thread if it still runs this handler, so
     * that a blocking call it waits in (sleep, lock, interruptible I/O) can end. Under {@link #runLock},
     * so the interrupt cannot land on the thread once it has moved on to another task.
     */
    private boolean interruptRunner() {
        synchronized (runLock) {
            if (runner == null) {
                return false;
            }
            runner.interrupt();
            return true;
        }
    }

    public IncomingBody body() {
        return body;
    }

    /** Loop: the request body streams to an inline handler's listener through {@code b}. */
    public void attachBody(IncomingBody b) {
        body = b;
    }

    EventLoop loop() {
        return loop;
    }

    OffLoopHost connection() {
        return conn;
    }

    // ---- Completion: any thread ----

    @Override
    public RequestView request() {
        return request;
    }

    @Override
    public Response response() {
        return response;
    }

    @Override
    public boolean complete() {
        if (!state.compareAndSet(RUNNING, COMPLETED)) {
            late();
            return false;
        }
        ChunkedBodyWriter w = writer;
        if (w != null) {
            w.finish();
        }
        PipedOutput p = pipe;
        if (p != null) {
            p.close(); // the handler returned without closing it: its body ends here
        }
        loop.execute(this);
        return true;
    }

    @Override
    public boolean fail(Throwable t) {
        if (!state.compareAndSet(RUNNING, COMPLETED)) {
            late();
            return false;
        }
        error = t == null ? new IllegalStateException("failed") : t;
        loop.execute(this);
        return true;
    }

    /** A completion after the loop gave up: the handler has ended now, so its copy can go back. */
    private void late() {
        if (state.compareAndSet(CANCELLED, ENDED)) {
            loop.execute(this::release);
        }
    }

    // ---- ResponseOwner: the handler's thread ----

    /**
     * A blocking handler going async: it completes this exchange itself, later, maybe from another
     * thread that keeps the completion past the timeout. So the request moves from the pooled copy to
     * heap memory now, on the handler's thread (the only one using the view at this moment), and the
     * pooled copy goes back to the pool on the loop.
     */
    @Override
    public Completion startAsync(ResponseView res) {
        if (copyPooled) {
            ByteBuffer pooled = copy;
            ByteBuffer heap = ByteBuffer.allocate(RequestCopy.length(request)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            boolean streamed = body != null;
            RequestCopy.into(request, heap, 0, request);
            if (streamed) {
                request.setIncomingBody(body);
            }
            copy = heap;
            copyPooled = false;
            loop.execute(() -> ctx.pool().release(pooled));
        }
        return this;
    }

    /**
     * A blocking handler's (or a completion's) interim response: handed to the loop, which writes it
     * at once if the final response has not begun by then. The loop's queue keeps it ahead of the
     * completion that follows it.
     */
    @Override
    public void sendInterim(ResponseView res, int status, String[] headers) {
        loop.execute(() -> {
            ChunkedBodyWriter w = writer;
            // Still this exchange's turn (its completion, queued after this task, has not run yet)?
            if (conn == null || conn.exchange() != this || conn.connection().isClosed()
                    || (w != null && w.headSent()) || request.versionNumber() == 10) {
                return; // too late, gone, or an HTTP/1.0 client (RFC 9110 §15.2)
            }
            if (conn instanceof StreamHost) { // HTTP/2: interim HEADERS on the stream (RFC 9113 §8.1)
                ((StreamHost) conn).interim(status, headers);
                return;
            }
            srv.encoder().encodeInterim(status, headers, conn.connection());
            conn.connection().flushBatch();
        });
    }

    @Override
    public OutputStream openStream(ResponseView res) {
        if (conn instanceof StreamHost) { // HTTP/2: DATA pulled from a bounded ring as the windows allow
            PipedOutput p = pipe;
            if (p == null) {
                p = new PipedOutput(this, loop);
                pipe = p;
                res.stream(p);
            }
            return p;
        }
        ChunkedBodyWriter w = writer;
        if (w == null) {
            w = new ChunkedBodyWriter(this);
            writer = w;
            res.markOutputStream();
        }
        return w;
    }

    // ---- loop ----

    /** Loop: the handler completed or failed. Writes its answer if the connection still waits for it. */
    @Override
    public void run() {
        ctx.timers().cancel(this);
        Throwable t = error;
        ChunkedBodyWriter w = writer;
        int status = 500;
        if (pipeAnswered) { // the stream pulls the pipe; a failure now resets it (one WARNING, from the stream)
            if (t != null) {
                pipe.fail(t);
            }
            release();
            return;
        }
        if (pipe != null) {
            pipe.abort(); // answered whole (an error, or nothing written): later writes throw
        }
        if (t != null) {
            if (w != null && w.headSent()) {
                ctx.metrics().handlerErrors++;
                if (!conn.streamFailed(t)) {
                    LOG.log(System.Logger.Level.WARNING, "handler failed for " + request
                            + " after its streamed response began; connection closed", t);
                }
            } else if ((conn.exchange() == this && conn.connection().isClosed())
                    || (conn instanceof StreamHost && conn.exchange() == null)) {
                // The client left first, or reset its HTTP/2 stream (its body stream then fails: "request body
                // aborted"): nobody is answered and nothing is wrong on this side, so no WARNING and stack trace per peer.
                LOG.log(System.Logger.Level.DEBUG, () -> "handler ended by the client's close for " + request + ": " + t);
            } else {
                status = srv.handlerFailed(request, t);
            }
            if (w != null) {
                w.abort();
            }
        }
        if (w != null && w.headSent()) {
            if (t != null && conn.bodyOut() == w) {
                conn.connection().close(); // a streamed response has begun: the client sees it truncated, never a second head
            }
            endBodyIn();
        } else if (conn.exchange() == this && !conn.connection().isClosed()) {
            if (t != null) {
                response.reset();
                response.error(status);
            } else if (afterHooks != null) {
                runAfterHooks();
            }
            respond(response);
        }
        release();
        if (recyclable(t, w)) {
            handler = null;
            conn = null;
            response.reset();
            srv.offLoop().recycle(this);
        }
    }

    /**
     * Loop, in {@link #run}: whether nothing can reach this exchange any more, so that it may serve
     * another request — a blocking handler that returned normally without {@code async()} or streams
     * (an async completion or a stream may be referenced by other threads or later loop tasks).
     */
    private boolean recyclable(Throwable t, ChunkedBodyWriter w) {
        return handler != null && t == null && w == null && pipe == null && body == null && state.get() == COMPLETED
                && (response.special() & (ResponseView.ASYNC | ResponseView.PRODUCER)) == 0; // a producer still reads its request view
    }

    @Override
    public dev.peregrine.ErrorPage errorPage() {
        return srv.config().errorPage();
    }

    /** Loop: {@code hook} runs on this exchange's response when it completes, before it is encoded. */
    void deferAfter(dev.peregrine.Handler hook) {
        if (afterHooks == null) {
            afterHooks = new java.util.ArrayList<>(2);
        }
        afterHooks.add(hook);
    }

    /** Loop, in {@link #run}: the after-hooks of a handed-over response (an exception in one answers as a handler's). */
    private void runAfterHooks() {
        java.util.List<dev.peregrine.Handler> hooks = afterHooks;
        afterHooks = null;
        for (int i = 0; i < hooks.size(); i++) { // the innermost filter's first, as they would have run
            try {
                hooks.get(i).handle(request, response);
            } catch (Throwable t) {
                int status = srv.handlerFailed(request, t);
                response.reset();
                response.error(status);
                return;
            }
        }
    }

    /** Loop: the deadline passed before the handler completed (or, streaming, sent its next piece). */
    @Override
    protected void onTimeout() {
        if (!state.compareAndSet(RUNNING, CANCELLED)) {
            return; // completed meanwhile: run() is on its way
        }
        if (pipeAnswered) { // its body has begun: the stream is reset, the writer's next write throws
            interruptRunner();
            pipe.fail(new java.util.concurrent.TimeoutException("no progress of the response body within " + timeoutMillis + " ms"));
            return;
        }
        PipedOutput p = pipe;
        if (p != null) {
            p.abort(); // the 503 below answers: what the handler writes later is refused
        }
        ChunkedBodyWriter w = writer;
        if (w != null) {
            w.abort();
            if (w.headSent()) {
                if (conn.bodyOut() == w) {
                    conn.connection().close();
                }
                return;
            }
        }
        boolean interrupted = handler != null && interruptRunner();
        if (conn.exchange() == this && !conn.connection().isClosed()) {
            if (dev.peregrine.jfr.PeregrineEvents.timeouts()) {
                dev.peregrine.jfr.PeregrineEvents.timedOut("async"); // a blocking handler's timeout too: the exchange's timer
            }
            String what = handler != null && handler.timeoutMillis() > 0 ? "blocking handler gave no answer within its timeout ("
                    : "no completion within asyncTimeout (";
            LOG.log(System.Logger.Level.WARNING, what + timeoutMillis + " ms) for " + request + "; answered 503"
                    + (interrupted ? ", its thread interrupted" : ""));
            ResponseView r = srv.response(); // free: timers run between handler calls
            r.reset();
            r.requestId(request.requestId());
            r.error(503);
            respond(r);
        }
    }

    /** Loop: the handler's body is still arriving and will not be read; called when the handler has ended. */
    private void endBodyIn() {
        if (body != null && conn.bodyIn() == body) {
            body.abort();
        }
    }

    /** Loop: re-arms the timeout after progress of a streamed body. */
    void touch() {
        if (scheduled()) {
            ctx.timers().schedule(this, timeoutMillis, System.currentTimeMillis());
        }
    }

    /** Loop: the connection no longer wants this exchange's response (its handler threw after async()). */
    void cancel() {
        ctx.timers().cancel(this);
        state.compareAndSet(RUNNING, CANCELLED);
    }

    /** Loop: the connection closed under the exchange. The handler is told through its streams. */
    public void connectionClosed() {
        ctx.timers().cancel(this);
        ChunkedBodyWriter w = writer;
        if (w != null) {
            w.abort();
        }
        if (body != null) {
            body.abort();
        }
    }

    /** Loop: encodes {@code res} — whole, or its head followed by a file — and lets the connection resume. */
    private void respond(ResponseView res) {
        ctx.tick();
        if (conn instanceof StreamHost) { // HTTP/2: the answer goes out in frames on its stream
            endBodyIn();
            ((StreamHost) conn).answer(request, res, head);
            return;
        }
        boolean bodyPending = body != null && conn.bodyIn() == body;
        BodySource.openFile(res); // before it is counted: a file gone since the handler's call is a 404
        boolean last = conn.lastAllowed(res.statusCode()); // counted for every response, whatever ran the handler
        boolean keepAlive = request.keepAlive() && !bodyPending && conn.connection().isOpen() && !last;
        boolean http10 = request.versionNumber() == 10;
        endBodyIn();
        ctx.metrics().requests++;
        if ((res.special() & (ResponseView.FILE | ResponseView.PRODUCER)) != 0) {
            srv.responding(request, res, head);
            keepAlive = BodySource.keepAlive(res, keepAlive, http10);
            conn.startBody(BodySource.start(srv, res, request, head, keepAlive, http10, conn.connection()), keepAlive);
            conn.pumpBody();
            return;
        }
        if (srv.compressor() != null) {
            srv.compressor().apply(request, res, head);
        }
        srv.responding(request, res, head);
        srv.encoder().encode(res, head, keepAlive, http10, conn.connection());
        conn.exchangeDone(keepAlive);
    }

    /**
     * Loop: the handler's stream handed over its first chunk. Writes the head and gives the
     * connection to the stream; returns false if the connection no longer waits for this exchange.
     */
    boolean commitOutputStream(ChunkedBodyWriter w) {
        int s = state.get();
        if (conn.exchange() != this || conn.connection().isClosed() || s == CANCELLED || s == ENDED) {
            return false;
        }
        ctx.tick();
        boolean http10 = request.versionNumber() == 10;
        boolean bodyPending = body != null && conn.bodyIn() == body;
        boolean last = conn.lastAllowed(response.statusCode());
        boolean keepAlive = request.keepAlive() && !http10 && !bodyPending && conn.connection().isOpen() && !last;
        ctx.metrics().requests++;
        boolean bodyAllowed = ResponseEncoder.hasBody(response.statusCode(), head);
        dev.peregrine.compress.engine.Encoder encoder = srv.compressor() == null ? null
                : srv.compressor().startIncremental(request, response, !bodyAllowed); // compression hook: adds its headers
        srv.responding(request, response, head);
        srv.encoder().encodeStreamHead(response, -1, keepAlive, http10, conn.connection());
        w.headWritten(!http10, bodyAllowed, encoder == null ? null : new CompressedChunks(srv.compressor(), encoder, !http10));
        touch();
        conn.startBody(w, keepAlive);
        return true;
    }

    /**
     * Loop: the handler's first write, flush or close of its {@link PipedOutput}: the head goes to the
     * stream, which pulls the pipe from then on; a stream gone (or a timeout's 503 sent) aborts the pipe.
     */
    void commitPipe() {
        int s = state.get();
        if (pipeAnswered || s == CANCELLED || s == ENDED) {
            return;
        }
        if (conn.exchange() != this || conn.connection().isClosed()) {
            pipe.abort();
            return;
        }
        pipeAnswered = true;
        touch();
        respond(response);
        if (conn.exchange() != this) {
            pipe.abort(); // the stream refused or dropped it
        }
    }

    /** Loop: the pipe has bytes (or its end) for a stream that stopped pulling it. */
    void pumpPipe() {
        if (pipeAnswered && conn instanceof StreamHost) {
            ((StreamHost) conn).pump();
        }
    }

    /** Loop: gives the copy back to the pool once the handler has ended (heap copies are left to the GC). */
    private void release() {
        if (copy != null) {
            if (copyPooled) {
                ctx.pool().release(copy);
            }
            copy = null;
        }
    }

    @Override
    public String toString() {
        return request.toString();
    }
}
