package dev.peregrine.loop;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * An outbound connection on its way: the part of {@link EventLoop#connect} every transport shares.
 * The transport starts a non-blocking connect, then reports {@link #connected} or {@link #failed}; a
 * timer node on the loop's wheel fails it after the connect timeout, and the transport's
 * {@code abort} closes the half-made socket. A transport's connect holds one (composition: the
 * transport's class extends nothing of ours for it).
 * <pre>
 *   CONNECTING --socket connected--&gt; connected(endpoint): timer cancelled, Connection built through
 *       |                             the layer (TLS), callback.connected
 *       +------ error / timeout ----&gt; abort(), callback.failed (the message names the address)
 * </pre>
 * Thread: the loop thread.
 */
public final class PendingConnect extends Timeout {
    private final LoopContext ctx;
    private final SocketAddress address;
    private final EndpointLayer layer;
    private final Protocol protocol;
    private final long timeoutMillis;
    private final ConnectCallback callback;
    /** Closes the socket being connected (the connect failed or timed out). */
    private final Runnable abort;
    private boolean done;

    /** Arms the connect timeout; {@code abort} closes the socket being connected when it fails. */
    public PendingConnect(LoopContext ctx, SocketAddress address, EndpointLayer layer, Protocol protocol,
                          long timeoutMillis, ConnectCallback callback, Runnable abort) {
        this.ctx = ctx;
        this.address = address;
        this.layer = layer;
        this.protocol = protocol;
        this.timeoutMillis = timeoutMillis;
        this.callback = callback;
        this.abort = abort;
        ctx.timers.schedule(this, timeoutMillis, System.currentTimeMillis());
    }

    /** The IP address and port being connected to (null for a Unix domain socket). */
    public InetSocketAddress address() {
        return address instanceof InetSocketAddress ? (InetSocketAddress) address : null;
    }

    /** The socket is connected: builds the connection on it, reports it and returns it. */
    public Connection connected(SocketEndpoint socket) {
        done = true;
        ctx.timers.cancel(this);
        Connection c = ctx.newConnection(socket, layer, protocol);
        callback.connected(c);
        return c;
    }

    /** The connect failed: closes what was made and reports it. */
    public void failed(IOException cause) {
        if (done) {
            return;
        }
        done = true;
        ctx.timers.cancel(this);
        abort.run();
        ConnectException e = new ConnectException("cannot connect to " + address + ": " + cause.getMessage());
        e.initCause(cause);
        callback.failed(e);
    }

    @Override
    protected void onTimeout() {
        if (!done) {
            done = true;
            abort.run();
            callback.failed(new ConnectException("connect to " + address + " timed out after " + timeoutMillis + " ms"));
        }
    }
}
