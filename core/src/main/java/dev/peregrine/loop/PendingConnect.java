package dev.peregrine.loop;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * An outbound connection on its way: the part of {@link EventLoop#connect} every transport shares.
 * The transport starts a non-blocking connect, then reports {@link #connected} or {@link #failed}; a
 * timer node on the loop's wheel fails it after the connect timeout, and the transport's
 * {@link #abort} closes the half-made socket.
 * <pre>
 *   CONNECTING --socket connected--&gt; connected(endpoint): timer cancelled, Connection built through
 *       |                             the layer (TLS), callback.connected
 *       +------ error / timeout ----&gt; abort(), callback.failed (the message names the address)
 * </pre>
 * Thread: the loop thread.
 */
public abstract class PendingConnect extends Timeout {
    private final LoopContext ctx;
    private final SocketAddress address;
    private final EndpointLayer layer;
    private final Protocol protocol;
    private final long timeoutMillis;
    private final ConnectCallback callback;
    private boolean done;

    protected PendingConnect(LoopContext ctx, SocketAddress address, EndpointLayer layer, Protocol protocol,
                             long timeoutMillis, ConnectCallback callback) {
        this.ctx = ctx;
        this.address = address;
        this.layer = layer;
        this.protocol = protocol;
        this.timeoutMillis = timeoutMillis;
        this.callback = callback;
        ctx.timers.schedule(this, timeoutMillis, System.currentTimeMillis());
    }

    /** The IP address and port being connected to (null for a Unix domain socket). */
    public final InetSocketAddress address() {
        return address instanceof InetSocketAddress ? (InetSocketAddress) address : null;
    }

    /** The socket is connected: builds the connection on it, reports it and returns it. */
    protected final Connection connected(SocketEndpoint socket) {
        done = true;
        ctx.timers.cancel(this);
        Connection c = ctx.newConnection(socket, layer, protocol);
        callback.connected(c);
        return c;
    }

    /** The connect failed: closes what was made and reports it. */
    protected final void failed(IOException cause) {
        if (done) {
            return;
        }
        done = true;
        ctx.timers.cancel(this);
        abort();
        ConnectException e = new ConnectException("cannot connect to " + address + ": " + cause.getMessage());
        e.initCause(cause);
        callback.failed(e);
    }

    /** Closes the socket being connected (the connect failed or timed out). */
    protected abstract void abort();

    @Override
    protected final void onTimeout() {
        if (!done) {
            done = true;
            abort();
            callback.failed(new ConnectException("connect to " + address + " timed out after " + timeoutMillis + " ms"));
        }
    }
}
