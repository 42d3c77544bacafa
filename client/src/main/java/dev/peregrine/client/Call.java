package dev.peregrine.client;

import dev.peregrine.loop.Timeout;

import java.util.concurrent.CompletableFuture;

/**
 * One {@link HttpClient} call on its way: the request, the future the caller holds, the attempts
 * made, and the total deadline as a node on the pool's loop timer wheel.
 * <pre>
 *   QUEUED (waiting for a connection) --&gt; SENT (on a connection) --&gt; DONE (response or failure)
 *        \--- total timeout, maxConnWait ---&gt; DONE                 ^--- retry: back to QUEUED
 * </pre>
 * A pipelined call has no {@link #connection} to close on its timeout: the connection carries other
 * calls, so the late response is read and dropped.
 *
 * <p>Thread: the site's loop thread, but {@link #future} is read by the caller.
 */
final class Call extends Timeout implements Runnable {
    final ClientRequest request;
    final CompletableFuture<ClientResponse> future = new CompletableFuture<>();
    final long queuedAtMillis;
    int attempts;
    /** Takes the response body as it arrives, or null to have it in memory. */
    ResponseBodyListener listener;
    /** The connection the request was sent on, while it is (for the total timeout to close it). */
    ClientConnection connection;
    /** Set once the call is queued waiting for a free connection: when it started waiting. */
    long waitingSinceMillis = -1;
    private final CallSite pool;
    private boolean done;

    Call(ClientRequest request, CallSite pool, long nowMillis) {
        this.request = request;
        this.pool = pool;
        this.queuedAtMillis = nowMillis;
    }

    /** Hands the call to its site: the task a caller off the loop queues to the site's loop. */
    @Override
    public void run() {
        pool.submit(this);
    }

    boolean done() {
        return done;
    }

    void succeed(ClientResponse r) {
        if (!done) {
            done = true;
            pool.timers().cancel(this);
            future.complete(r);
        }
    }

    void fail(ClientException e) {
        if (!done) {
            done = true;
            pool.timers().cancel(this);
            future.completeExceptionally(e);
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
