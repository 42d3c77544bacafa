package dev.peregrine.client;

import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.Timeout;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One call on its way: the request, how the caller hears the end (a future, or a
 * {@link ReusableResponse} and its {@link ResponseCallback}), the attempts made, and the total deadline
 * as a node on the site's loop timer wheel.
 * <pre>
 *   free list --acquire--&gt; QUEUED (waiting for a connection) --&gt; SENT (on a connection) --&gt; DONE
 *                               \--- total timeout, maxConnWait ---&gt; DONE (failed)   ^--- retry: QUEUED
 *   DONE by a response --&gt; back on the site's free list ({@link CallRecycler})
 *   DONE by a failure  --&gt; left to the collector: a wait queue, a name lookup, a connect or a
 *                          pipeline's sent queue may still hold it, and must find it DONE
 * </pre>
 * A call answered by a response is held by nothing else (its connection dropped it first, it is in no
 * wait queue, its timer node is cancelled), which is what makes reusing it safe. A pipelined call has
 * no {@link #connection} to close on its timeout: the connection carries other calls, so the late
 * response is read and dropped.
 *
 * <p>Thread: the site's loop thread, but for {@link #init}, which the caller runs before handing the
 * call over (the loop's task queue, or the free list's, orders the writes).
 */
final class Call extends Timeout implements Runnable {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.client");

    ClientRequest request;
    /** The caller's future (the future API), or null on the reuse path. */
    CompletableFuture<ClientResponse> future;
    /** The caller's response to fill (the reuse path), or null. */
    private ReusableResponse target;
    private ResponseCallback callback;
    long queuedAtMillis;
    int attempts;
    /** Takes the response body as it arrives, or null to have it in memory. */
    ResponseBodyListener listener;
    /** The connection the request was sent on, while it is (for the total timeout to close it). */
    ClientConnection connection;
    /** Set once the call is queued waiting for a free connection: when it started waiting. */
    long waitingSinceMillis = -1;
    /** Set when the call must go over HTTP/1.1 (an HTTP/2 server answered HTTP_1_1_REQUIRED). */
    boolean http1;
    private final CallSite pool;
    private boolean done;

    Call(CallSite pool) {
        this.pool = pool;
    }

    /** Prepares a new or recycled call for {@code request}; exactly one of {@code future} and {@code target} is given. */
    Call init(ClientRequest request, long nowMillis, CompletableFuture<ClientResponse> future,
              ReusableResponse target, ResponseCallback callback) {
        this.request = request;
        this.queuedAtMillis = nowMillis;
        this.future = future;
        this.target = target;
        this.callback = callback;
        this.attempts = 0;
        this.listener = null;
        this.connection = null;
        this.waitingSinceMillis = -1;
        this.http1 = false;
        this.done = false;
        return this;
    }

    /** Hands the call to its site: the task a caller off the loop queues to the site's loop. */
    @Override
    public void run() {
        pool.submit(this);
    }

    boolean done() {
        return done;
    }

    /**
     * Takes the response {@code reader} just completed out of {@code buf}, before the connection moves
     * on: into the caller's {@link ReusableResponse} (returns null), or as a new {@link ClientResponse}.
     * Returns null, touching nothing, for a call already done (its late response is dropped: the
     * caller's object may be in another call by now).
     */
    ClientResponse collect(ResponseReader reader, ByteBuffer buf) {
        if (done) {
            return null;
        }
        if (target != null) {
            target.fill(reader, buf);
            return null;
        }
        return ClientResponse.of(reader, buf);
    }

    /** As {@link #collect(ResponseReader, ByteBuffer)} for a response read over HTTP/2 (no reason phrase). */
    ClientResponse collect(H2Stream s) {
        if (done) {
            return null;
        }
        if (target != null) {
            target.fill(s.status, s.names, s.values, s.fieldCount, s.data, s.dataLength);
            return null;
        }
        return new ClientResponse(s.status, "", java.util.List.of(java.util.Arrays.copyOf(s.names, s.fieldCount)),
                java.util.List.of(java.util.Arrays.copyOf(s.values, s.fieldCount)), java.util.Arrays.copyOf(s.data, s.dataLength));
    }

    /**
     * Answers the caller: with {@code r} (the future API), or with the response {@link #collect} filled
     * in. The call then goes back to its site's free list: nothing holds it any more.
     */
    void succeed(ClientResponse r) {
        if (done) {
            return;
        }
        done = true;
        pool.timers().cancel(this);
        CompletableFuture<ClientResponse> f = future;
        ReusableResponse t = target;
        ResponseCallback cb = callback;
        ClientRequest req = request;
        recycle();
        if (cb != null) {
            t.unclaim();
            callBack(cb, t, null, req);
        } else {
            f.complete(r);
        }
    }

    void fail(ClientException e) {
        if (!done) {
            done = true;
            pool.timers().cancel(this);
            if (callback != null) {
                target.clear();
                target.unclaim();
                callBack(callback, target, e, request);
            } else {
                future.completeExceptionally(e);
            }
        }
    }

    private void recycle() {
        request = null;
        future = null;
        target = null;
        callback = null;
        listener = null;
        connection = null;
        pool.calls().recycle(this);
    }

    /** Runs the caller's callback; what it throws is the caller's mistake, logged, never the loop's problem. */
    static void callBack(ResponseCallback cb, ReusableResponse r, ClientException failure, ClientRequest request) {
        try {
            cb.onResponse(r, failure);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a ResponseCallback threw (ignored): " + e
                    + (request != null ? " (request " + request.method() + " " + request.uri() + ")" : ""));
        }
    }

    /** The total timeout ran out. */
    @Override
    protected void onTimeout() {
        if (done) {
            return;
        }
        ClientConnection c = connection;
        fail(new ClientException(ClientException.Phase.TOTAL, pool.host(), "no response within the total timeout of "
                + pool.client().totalTimeoutMillis + " ms"));
        pool.forget(this);
        if (c != null) {
            c.abandon(); // the connection is in an unknown state mid-exchange: close it
        }
    }
}
