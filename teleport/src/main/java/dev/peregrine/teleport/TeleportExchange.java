package dev.peregrine.teleport;

import dev.peregrine.loop.Connection;
import dev.peregrine.loop.LoopMetrics;
import dev.peregrine.offloop.BodySource;
import dev.peregrine.offloop.Exchange;
import dev.peregrine.offloop.HttpLoop;
import dev.peregrine.offloop.IncomingBody;
import dev.peregrine.offloop.OffLoopHost;

import java.nio.ByteBuffer;

/**
 * One teleport request answered off the loop ({@code res.async()}): the {@link OffLoopHost} its
 * {@link Exchange} reports to, one per request, so that many are in flight on one connection and each
 * response leaves when its handler completes, tagged with its id. The exchange encodes its response
 * into the loop's write buffer (the connection's {@code out()}, empty when a loop task begins);
 * {@link #lastAllowed} (called just before the encoding) marks where it begins and
 * {@link #exchangeDone} (just after) moves those bytes behind a RESPONSE header, out of the shared
 * buffer, to leave with the others completed in the same run of the loop's tasks. Were the response
 * larger than the write buffer, the encoder would have written part of it to the socket unframed:
 * that is seen (the loop's byte counter moved) and the connection closes (one WARNING) rather than
 * send a corrupt stream. Bodies in pieces (files, producers) are not carried: the connection closes.
 *
 * <p>Thread: the loop thread.
 */
final class TeleportExchange implements OffLoopHost {
    private static final System.Logger LOG = System.getLogger("dev.peregrine.teleport");
    private final TeleportServerProtocol protocol;
    private final HttpLoop http;
    private final Connection c;
    final int id;
    Exchange exchange;
    private int mark;
    private long bytesOutMark;

    TeleportExchange(TeleportServerProtocol protocol, HttpLoop http, Connection c, int id) {
        this.protocol = protocol;
        this.http = http;
        this.c = c;
        this.id = id;
    }

    @Override
    public HttpLoop httpLoop() {
        return http;
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
        return null;
    }

    @Override
    public IncomingBody bodyIn() {
        return null;
    }

    /** Called by the exchange just before it encodes: marks where the response begins. Never the last. */
    @Override
    public boolean lastAllowed(int status) {
        mark = c.out().position();
        bytesOutMark = metrics().bytesOut;
        return false;
    }

    @Override
    public void exchangeDone(boolean keepAlive) {
        ByteBuffer out = c.out();
        if (metrics().bytesOut != bytesOutMark || out.position() < mark) {
            out.position(Math.min(mark, out.position())); // nothing of it may stay in the loop's shared buffer
            LOG.log(System.Logger.Level.WARNING, "async response for teleport request " + Integer.toUnsignedString(id)
                    + " is larger than the loop's write buffer; teleport connection closed");
            protocol.exchangeEnded(this);
            c.close();
            return;
        }
        protocol.exchangeEnded(this);
        protocol.frameFromOut(id, mark); // leaves with the other responses completed in this run of the loop's tasks
    }

    @Override
    public void startBody(BodySource body, boolean keepAlive) {
        c.out().position(Math.min(mark, c.out().position())); // its head: nothing may stay in the loop's shared buffer
        LOG.log(System.Logger.Level.WARNING, "a file or produced body from an async handler is not carried over teleport;"
                + " teleport connection closed");
        protocol.exchangeEnded(this);
        c.close();
    }

    @Override
    public void pumpBody() {
    }

    @Override
    public void bodyInEnded(IncomingBody body) {
    }

    private LoopMetrics metrics() {
        return http.loop().metrics();
    }
}
