package dev.peregrine.server;

import dev.peregrine.BodyListener;
import dev.peregrine.exchange.RequestView;
import dev.peregrine.exchange.ResponseView;
import dev.peregrine.http1.Methods;
import dev.peregrine.loop.Connection;
import dev.peregrine.offloop.BlockingHandler;
import dev.peregrine.offloop.BodySource;
import dev.peregrine.offloop.Exchange;
import dev.peregrine.offloop.HttpLoop;
import dev.peregrine.offloop.IncomingBody;
import dev.peregrine.offloop.OffLoopHost;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The BUSY states of one HTTP/1.1 server connection: what its {@link Http1ServerProtocol} waits for
 * while a request is handled off the loop or a body moves in pieces, and the one
 * {@link OffLoopHost} the {@code offloop} package reports back to. At most one exchange and one
 * body each way at a time:
 * <pre>
 *   exchange  an Exchange: a blocking handler, or an inline handler that called async()
 *   bodyOut   a response body in pieces after its head (file, producer, the handler's output stream)
 *   bodyIn    a request body streamed to a handler as it arrives (reads go to it)
 * </pre>
 * While {@link #producing} the protocol handles no further request (held input waits in the
 * connection), so responses leave in request order; {@link #exchangeDone} and the end of a body
 * let it carry on ({@code Connection.resumeInput}).
 *
 * <p>Thread: the owning loop thread.
 */
final class OffLoopWork implements OffLoopHost {
    private final Http1ServerProtocol protocol;
    private final ServerLoop srv;
    private final Connection c;
    /** The request being handled off the loop; while set, no further request is handled. */
    private Exchange exchange;
    /** A response body being sent in pieces; while set, no further request is handled. */
    private BodySource bodyOut;
    /** Whether the connection closes once {@link #bodyOut} is sent. */
    private boolean closeAfterBody;
    /** A request body being streamed to a handler; while set, reads go to it. */
    private IncomingBody bodyIn;

    OffLoopWork(Http1ServerProtocol protocol, ServerLoop srv, Connection c) {
        this.protocol = protocol;
        this.srv = srv;
        this.c = c;
    }

    /** Whether anything is under way off the loop or in pieces (the protocol's timer phase is then none). */
    boolean busy() {
        return exchange != null || bodyOut != null || bodyIn != null;
    }

    /** Whether a response is still to come from this work: the connection must not close or read on. */
    boolean producing() {
        return exchange != null || bodyOut != null;
    }

    /** Whether the next request may be handled now: no exchange, and any body in pieces all handed over. */
    boolean readyForNext() {
        return exchange == null && (bodyOut == null || pumpBody(false));
    }

    /** A streamed request body takes what the socket has; false when none is being streamed. */
    boolean onReadable(Connection c) throws IOException {
        if (bodyIn == null) {
            return false;
        }
        bodyIn.onReadable(c, srv.readBuffer);
        return bodyIn != null || !c.isOpen();
    }

    /** The socket drained: a body in pieces continues. */
    void onOutputReady() {
        if (bodyOut != null) {
            pumpBody(true);
        }
    }

    /** The connection closed: the handler learns through its streams; bodies give back what they hold. */
    void onClosed() {
        if (exchange != null) {
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
    }

    // ---------------------------------------------------------------- hand-offs (from the protocol)

    /** {@code req} goes to blocking handler {@code h}; with {@code streamedLength >= 0} or unknown (chunked) its body streams to it. */
    void blocking(RequestView req, BlockingHandler h, long streamedLength) {
        exchange = Exchange.blocking(this, req, h, streamedLength);
        if (streamedLength >= 0 || streamedLength == IncomingBody.UNKNOWN_LENGTH) {
            bodyIn = exchange.body();
        }
    }

    /** An inline handler called {@code async()}: the protocol waits for {@code x}. */
    void async(Exchange x) {
        exchange = x;
    }

    /**
     * A streaming handler went async with the head of a body still arriving: the body streams to its
     * {@code listener}, the response comes through {@code x}.
     */
    void streamToListener(Exchange x, long length, BodyListener listener) {
        exchange = x;
        bodyIn = new IncomingBody(this, x, length, listener, true);
        x.attachBody(bodyIn);
    }

    /** The rest of a request body nobody reads is discarded as it arrives (the connection then closes). */
    void discardBody(long length) {
        bodyIn = new IncomingBody(this, null, length, null, true);
    }

    /**
     * The first {@code have} body bytes at {@code from} of {@code b} go to the streamed body. For a
     * chunked one they are what {@code decoder} decoded so far, and it goes on with the socket's bytes
     * (trailers bounded by {@code maxTrailers}); {@code whole}: its last chunk came too.
     */
    void feed(ByteBuffer b, int from, int have, dev.peregrine.http1.ChunkedDecoder decoder, int maxTrailers, boolean whole) {
        IncomingBody in = bodyIn;
        if (decoder != null) {
            in.decodeWith(decoder, maxTrailers);
        }
        in.feed(b, from, have);
        if (decoder != null && whole) {
            in.arrived();
        }
    }

    /**
     * An inline handler answered {@code req} with a file or a producer: its head is encoded now, the
     * body follows in pieces.
     */
    void sendInPieces(RequestView req, ResponseView res, boolean keepAlive) {
        boolean http10 = req.versionNumber() == 10;
        boolean head = req.methodId() == Methods.HEAD;
        keepAlive = BodySource.keepAlive(res, keepAlive, http10);
        srv.metrics.requests++;
        srv.responding(req, res, head);
        bodyOut = BodySource.start(srv, res, req, head, keepAlive, http10, c);
        closeAfterBody = !keepAlive;
    }

    // ---------------------------------------------------------------- OffLoopHost (called by offloop, loop thread)

    @Override
    public HttpLoop httpLoop() {
        return srv;
    }

    @Override
    public Connection connection() {
        return c;
    }

    @Override
    public Exchange exchange() {
        return exchange;
    }

    @Override
    public BodySource bodyOut() {
        return bodyOut;
    }

    @Override
    public IncomingBody bodyIn() {
        return bodyIn;
    }

    @Override
    public boolean lastAllowed(int status) {
        return protocol.lastAllowed(status);
    }

    @Override
    public void bodyInEnded(IncomingBody b) {
        if (bodyIn == b) {
            bodyIn = null;
        }
    }

    @Override
    public void exchangeDone(boolean keepAlive) {
        exchange = null;
        if (bodyIn != null && bodyIn.complete()) {
            bodyIn = null;
        }
        if (!keepAlive) {
            c.closeAfterOutput();
        }
        c.resumeInput();
    }

    @Override
    public void startBody(BodySource body, boolean keepAlive) {
        exchange = null;
        bodyOut = body;
        closeAfterBody = !keepAlive;
    }

    @Override
    public void pumpBody() {
        pumpBody(true);
    }

    /**
     * Moves the body in pieces on: the batch first (its head and earlier responses), then as much of
     * the body as the socket takes. When all of it is handed over, the connection carries on (closes
     * after it, or with {@code resumeAfter} offers held input again); returns whether it was.
     */
    private boolean pumpBody(boolean resumeAfter) {
        BodySource b = bodyOut;
        if (b == null) {
            return true;
        }
        if (c.state() == Connection.State.CLOSED || c.state() == Connection.State.DRAINING) {
            return false;
        }
        boolean done;
        try {
            c.flushBatch();
            if (c.isClosed()) {
                return false;
            }
            done = b.pump(c);
            c.flushBatch();
        } catch (IOException e) {
            c.close(); // the head has left: the client sees a truncated message
            return false;
        }
        if (!done || c.isClosed()) {
            return false;
        }
        bodyOut = null;
        c.writeInterest(false);
        if (closeAfterBody) {
            c.closeAfterOutput();
        }
        if (resumeAfter) {
            c.resumeInput();
        }
        c.updateTimer();
        return true;
    }
}
