package dev.peregrine.server;

import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.h2.PendingStream;
import dev.peregrine.h2.StreamBody;
import dev.peregrine.h2.StreamDispatch;
import dev.peregrine.loop.Connection;
import dev.peregrine.offloop.BodySource;
import dev.peregrine.offloop.Exchange;
import dev.peregrine.offloop.HttpLoop;
import dev.peregrine.offloop.IncomingBody;
import dev.peregrine.offloop.StreamHost;

/**
 * One HTTP/2 stream whose handler runs off the loop — a blocking route, or an inline handler that
 * called {@code res.async()} — as the {@code offloop} package sees it ({@link StreamHost}): the
 * {@link Exchange} runs exactly as over HTTP/1.1 (same executor, timeout, copy of the request), and
 * its answer comes back here on the loop, goes through the same finishing as an inline answer
 * ({@link Http2Dispatch#finish}: compression, access log, metrics, histograms) and leaves on the
 * stream ({@link PendingStream}). Nothing of the connection waits for it: other streams are served
 * meanwhile. A stream reset by the client, or a connection closed, before the answer: the answer is
 * dropped; the exchange still gives its copy of the request back to the pool when its handler ends.
 * <pre>
 *   dispatch --&gt; Exchange (blocking executor / the completion's thread) --&gt; loop: answer(res)
 *     live stream: finish, HEADERS + DATA, duration recorded;  gone: dropped
 * </pre>
 * A request body above {@code streamBodyThreshold} or without {@code content-length} (a blocking or
 * streaming route) is routed at the
 * stream's HEADERS and streamed to its handler: this work is the stream's {@link StreamBody}, offering
 * each DATA payload to its {@link IncomingBody} and passing back what the handler consumed, which
 * reopens the stream's window ({@link PendingStream#bodyConsumed}).
 * <p>Thread: the loop thread.
 */
final class Http2StreamWork implements StreamHost, StreamBody {
    private final ServerLoop srv;
    private final Http2Dispatch dispatch;
    private final PendingStream stream;
    private Exchange exchange;
    /** The request body streamed to the handler as DATA arrives, until it ended or was aborted; null otherwise. */
    private IncomingBody body;
    /** Ops: whether the request is timed, since when (nanoTime), its series ({@link RequestDurations}). */
    private boolean timing;
    private long since;
    private int key;

    Http2StreamWork(ServerLoop srv, Http2Dispatch dispatch, PendingStream stream) {
        this.srv = srv;
        this.dispatch = dispatch;
        this.stream = stream;
    }

    void started(Exchange x) {
        exchange = x;
    }

    /** The stream's DATA goes to {@code b} from now on ({@link StreamBody}), through this work. */
    void receive(IncomingBody b) {
        body = b;
        stream.receive(this);
    }

    void timing(boolean on, long sinceNanos, RequestView req) {
        timing = on;
        since = sinceNanos;
        key = on ? RequestDurations.key(req.routeId(), req.methodId(), 0) : 0;
    }

    private void timed(int status) {
        if (timing) {
            timing = false;
            RequestDurations.requestDone(srv, key, status, System.nanoTime() - since);
        }
    }

    // ---------------------------------------------------------------- StreamHost

    @Override
    public void answer(RequestView req, ResponseView res, boolean head) {
        if (!stream.live()) {
            return; // reset or closed meanwhile: nobody to answer, and nothing recorded
        }
        if (dispatch.finish(req, res, head) == StreamDispatch.HTTP_1_1_REQUIRED) {
            stream.refuse(); // asked again over HTTP/1.1, and timed there
            return;
        }
        timed(res.statusCode());
        stream.answer(res, head);
    }

    @Override
    public void interim(int status, String[] headers) {
        stream.interim(status, headers);
    }

    @Override
    public void pump() {
        stream.pump();
    }

    // ---------------------------------------------------------------- OffLoopHost

    @Override
    public HttpLoop httpLoop() {
        return srv;
    }

    @Override
    public Connection connection() {
        return stream.connection();
    }

    /** The exchange while its stream still waits for it; null once reset or closed (its answer is then dropped). */
    @Override
    public Exchange exchange() {
        return stream.live() ? exchange : null;
    }

    @Override
    public BodySource bodyOut() {
        return null;
    }

    @Override
    public IncomingBody bodyIn() {
        return body;
    }

    @Override
    public boolean lastAllowed(int status) {
        return false; // an HTTP/2 connection is not closed by one stream's response
    }

    @Override
    public void exchangeDone(boolean keepAlive) {
        throw new IllegalStateException("a stream host answers through answer()");
    }

    @Override
    public void startBody(BodySource body, boolean keepAlive) {
        throw new IllegalStateException("no body in pieces over HTTP/2");
    }

    @Override
    public void pumpBody() {
        throw new IllegalStateException("no body in pieces over HTTP/2");
    }

    @Override
    public void bodyInEnded(IncomingBody b) {
        if (body == b) {
            body = null;
        }
    }

    @Override
    public void bodyConsumed(int bytes, boolean now) {
        stream.bodyConsumed(bytes, now);
    }

    // ---------------------------------------------------------------- StreamBody (the stream's DATA)

    @Override
    public int offer(java.nio.ByteBuffer b, int from, int length) {
        IncomingBody in = body;
        return in == null ? length : in.offer(b, from, length); // ended or aborted: what still comes is dropped
    }

    @Override
    public void ended(long total) {
        IncomingBody in = body;
        if (in != null) {
            in.lengthKnown(total);
        }
    }

    @Override
    public void trailers(String[] namesAndValues) {
        IncomingBody in = body;
        if (in != null) {
            in.trailers(namesAndValues);
        }
    }

    @Override
    public void trailersTooLarge() {
        IncomingBody in = body;
        if (in != null) {
            in.refuse(431, "request trailers passed the header list size");
        }
    }

    @Override
    public void abort() {
        IncomingBody in = body;
        body = null;
        if (in != null) {
            in.abort();
        }
    }
}
