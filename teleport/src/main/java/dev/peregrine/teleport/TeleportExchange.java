package dev.peregrine.teleport;

import dev.peregrine.loop.Connection;
import dev.peregrine.offloop.BodySource;
import dev.peregrine.offloop.Exchange;
import dev.peregrine.offloop.HttpLoop;
import dev.peregrine.offloop.IncomingBody;
import dev.peregrine.offloop.OffLoopHost;

import java.io.IOException;

/**
 * One teleport request answered off the loop or in pieces: the {@link OffLoopHost} its {@link Exchange}
 * (a blocking handler's, or an inline handler's {@code res.async()}) reports to, one per request, so
 * that many are in flight on one connection and each response leaves when it is whole, tagged with its
 * id. Off-loop code writes the response to {@link #connection()}, which is this request's
 * {@link ResponseCapture}: the head, then a body whole or in pieces (a file, a producer, the handler's
 * output stream, chunked as over HTTP/1.1), gathered up to the client's max frame.
 * <pre>
 *   RUNNING --exchangeDone: whole--&gt; answered (RESPONSE frame, id freed)
 *      |--startBody: a body in pieces--&gt; BODY --pumpBody until all in--&gt; answered
 *      |                                   |  the capture passed the client's max frame,
 *      |                                   |  the body failed, or off-loop code closed the capture
 *      |                                   v
 *      +---------------------------------&gt; answered 500 instead (one WARNING)
 *   the teleport connection closed: the exchange is told ({@code connectionClosed}); nothing is sent
 * </pre>
 *
 * <p>Thread: the loop thread.
 */
final class TeleportExchange implements OffLoopHost, ResponseCapture.Owner {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.teleport");
    private final TeleportServerProtocol protocol;
    private final HttpLoop http;
    private final Connection c;
    final int id;
    /** When the request was dispatched (for its duration), or 0 when nothing times it. */
    final long startNanos;
    final int durationKey;
    Exchange exchange;
    private ResponseCapture capture;
    private BodySource bodyOut;
    /** Whether the response is still to leave (false once answered, or the connection closed). */
    private boolean live = true;
    /** What the handler threw after its streamed response began (then its capture closes), or null. */
    private Throwable streamFailure;

    TeleportExchange(TeleportServerProtocol protocol, HttpLoop http, Connection c, int id, long startNanos, int durationKey) {
        this.protocol = protocol;
        this.http = http;
        this.c = c;
        this.id = id;
        this.startNanos = startNanos;
        this.durationKey = durationKey;
    }

    @Override
    public HttpLoop httpLoop() {
        return http;
    }

    /** Where this request's response is written: its capture (made at the first write). */
    @Override
    public Connection connection() {
        return capture().connection();
    }

    private ResponseCapture capture() {
        if (capture == null) {
            capture = new ResponseCapture(c, protocol.peerMaxFrame(), this);
        }
        return capture;
    }

    /** The exchange, while its response is still wanted: after that a late completion finds none and sends nothing. */
    @Override
    public Exchange exchange() {
        return live ? exchange : null;
    }

    @Override
    public BodySource bodyOut() {
        return bodyOut;
    }

    /** Request bodies are whole in their frame: none is streamed. */
    @Override
    public IncomingBody bodyIn() {
        return null;
    }

    /** Called by the exchange just before it encodes: the request's duration ends. Never the last: a connection's limits do not apply. */
    @Override
    public boolean lastAllowed(int status) {
        protocol.requestEnded(this, status);
        return false;
    }

    @Override
    public void exchangeDone(boolean keepAlive) {
        if (!live) {
            return;
        }
        capture().collect();
        answer();
    }

    @Override
    public void startBody(BodySource body, boolean keepAlive) {
        bodyOut = body;
    }

    /** The body in pieces moves on (all of a file or producer at once; a handler's stream as its chunks come). */
    @Override
    public void pumpBody() {
        BodySource b = bodyOut;
        if (!live || b == null) {
            return;
        }
        ResponseCapture cap = capture();
        boolean done;
        try {
            done = b.pump(cap.connection());
            cap.collect();
        } catch (IOException | RuntimeException e) {
            cap.collect();
            bodyOut = null;
            b.abort();
            fail("its body failed", e);
            return;
        }
        if (cap.overflowed()) {
            bodyOut = null;
            b.abort();
            answer(); // 500: larger than the client's frame limit
            return;
        }
        if (done) {
            bodyOut = null;
            b.abort(); // a file's channel closed (idempotent)
            answer();
        }
    }

    @Override
    public void bodyInEnded(IncomingBody body) {
    }

    /**
     * The handler threw after its stream began. Still wanted: the exchange closes the capture next, and
     * {@link #captureClosed} reports it (one WARNING, 500). Settled already (the stream passed the
     * client's max frame and 500 left with its WARNING, or the connection closed): the handler's
     * failure is that aborted stream's, worth a DEBUG line only.
     */
    @Override
    public boolean streamFailed(Throwable t) {
        if (!live) {
            LOG.log(System.Logger.Level.DEBUG, () -> "teleport request " + Integer.toUnsignedString(id)
                    + ": its handler failed after its response was settled: " + t);
            return true;
        }
        if (bodyOut == null) {
            return false;
        }
        streamFailure = t;
        return true;
    }

    /** Off-loop code closed the capture: a stream that failed or timed out after its head. */
    @Override
    public void captureClosed() {
        if (live) {
            BodySource b = bodyOut;
            bodyOut = null;
            if (b != null) {
                b.abort();
            }
            Throwable t = streamFailure;
            streamFailure = null;
            fail(t != null ? "its handler failed after its streamed response began"
                    : "its streamed response was abandoned (no next piece within its timeout)", t);
        }
    }

    /** The response is whole in the capture (or overflowed): it leaves, or 500 does. */
    private void answer() {
        live = false;
        ResponseCapture cap = capture;
        cap.release(); // first: closing it clears the loop's write buffer, where the frame may go
        protocol.exchangeAnswered(this, cap);
    }

    /** One WARNING (with {@code cause}'s trace, when there is one), then 500 instead of the response. */
    private void fail(String why, Throwable cause) {
        LOG.log(System.Logger.Level.WARNING, "teleport request " + Integer.toUnsignedString(id) + " answered 500: " + why, cause);
        live = false;
        if (capture != null) {
            capture.release();
        }
        protocol.exchangeAnswered(this, null);
    }

    /** The teleport connection closed: nothing will be sent; the handler learns through its streams. */
    void connectionClosed() {
        live = false;
        BodySource b = bodyOut;
        bodyOut = null;
        if (b != null) {
            b.abort();
        }
        if (exchange != null) {
            exchange.connectionClosed();
        }
        if (capture != null) {
            capture.release();
        }
    }
}
