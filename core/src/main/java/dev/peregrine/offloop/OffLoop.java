package dev.peregrine.offloop;

import dev.peregrine.Completion;
import dev.peregrine.exchange.ResponseOwner;
import dev.peregrine.exchange.ResponseView;

import java.io.OutputStream;

/**
 * The owner of the loop's shared {@link ResponseView}: what an inline handler reaches through
 * {@link dev.peregrine.Response#async()} and {@link dev.peregrine.Response#outputStream()}.
 * {@code async()} copies the request being handled into an {@link Exchange} at once (the handler may
 * give the completion to another thread before it returns); the connection takes the exchange over
 * when the handler returns ({@link #takePending}).
 *
 * <p>Thread: the owning loop.
 */
public final class OffLoop implements ResponseOwner {
    private final HttpLoop srv;
    private Exchange pending;
    /** Finished blocking exchanges kept for reuse (see {@code Exchange.recyclable}). */
    private final java.util.ArrayDeque<Exchange> reusable = new java.util.ArrayDeque<>();
    private static final int MAX_REUSABLE = 64;

    public OffLoop(HttpLoop srv) {
        this.srv = srv;
    }

    /**
     * The connection whose inline handler is running now ({@link HttpLoop#inlineSite}), or null before
     * the loop's first: a handler that switches the connection to another protocol after its
     * {@code 101} (WebSocket) reaches it here.
     */
    public dev.peregrine.loop.Connection inlineConnection() {
        InlineSite current = srv.inlineSite();
        return current == null ? null : current.connection();
    }

    /** Where blocking work of this server runs (a WebSocket route's off-loop callbacks use it too). */
    public OffLoopExecutor blockingExecutor() {
        return srv.blockingExecutor();
    }

    @Override
    public Completion startAsync(ResponseView res) {
        if (pending == null) {
            pending = Exchange.async(srv.inlineSite().offLoopHost(), srv.request());
        }
        if (!res.committed()) {
            res.copyHeadTo((ResponseView) pending.response()); // what filters set before the handler stays in the answer
        }
        res.handOver(); // from now on the handler answers through the completion's own response
        return pending;
    }

    @Override
    public dev.peregrine.ErrorPage errorPage() {
        return srv.config().errorPage();
    }

    /** An after-hook on a handed-over response: run on the completion's response when it completes. */
    @Override
    public void deferAfter(ResponseView res, dev.peregrine.Handler hook) {
        if (pending == null) {
            throw new IllegalStateException("no completion is pending for this response");
        }
        pending.deferAfter(hook);
    }

    @Override
    public OutputStream openStream(ResponseView res) {
        throw new IllegalStateException("an inline handler must not block its event loop: declare the route"
                + " with Handlers.blocking(...) to write a streamed body, or use res.async() and"
                + " completion.response().outputStream() from another thread");
    }

    /** An inline handler's interim response: into the loop's write buffer now, before its final one. */
    @Override
    public void sendInterim(ResponseView res, int status, String[] headers) {
        int version = srv.request().versionNumber();
        if (version == 20) {
            srv.inlineSite().interim(status, headers); // HTTP/2: HEADERS without END_STREAM (RFC 9113 §8.1)
            return;
        }
        if (version != 11) {
            return; // RFC 9110 §15.2: no 1xx to an HTTP/1.0 client
        }
        srv.encoder().encodeInterim(status, headers, srv.inlineSite().interimOut());
    }

    /** The exchange started by the handler that just returned, or null; forgets it. */
    public Exchange takePending() {
        Exchange x = pending;
        pending = null;
        return x;
    }

    /** The handler threw after {@code async()}: its 500 goes out now; the completion, if called later, returns false. */
    public void handlerThrew() {
        Exchange x = takePending();
        if (x != null) {
            x.cancel();
        }
    }

    /** A finished exchange to serve another blocking request, or null. */
    Exchange reusableExchange() {
        return reusable.pollFirst();
    }

    /** Keeps a finished exchange for reuse, up to a bound. */
    void recycle(Exchange x) {
        if (reusable.size() < MAX_REUSABLE) {
            reusable.addFirst(x);
        }
    }
}
