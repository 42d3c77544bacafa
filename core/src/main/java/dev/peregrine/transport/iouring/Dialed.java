package dev.peregrine.transport.iouring;

import dev.peregrine.transport.NettySockets;
import dev.peregrine.transport.Readiness;
import io.netty.channel.unix.Socket;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A socket whose non-blocking connect is under way: its write poll's completion goes to the connect's
 * {@link Readiness}; once connected, the connection's {@link IoUringEndpoint} takes its place
 * ({@link NettyIoUring.Fd#takeOver}).
 *
 * <p>Thread: the loop.
 */
final class Dialed extends NettyIoUring.Fd {
    private final boolean connectedAtOnce;
    private Readiness owner;

    private Dialed(Socket s, boolean connectedAtOnce) {
        super(s);
        this.connectedAtOnce = connectedAtOnce;
    }

    /**
     * A new socket (TCP_NODELAY) with a non-blocking connect to {@code address} started; when
     * {@link #connectedAtOnce} is false, the connect ends with writability, then {@link #finishConnect}.
     */
    static Dialed connecting(InetSocketAddress address) throws IOException {
        Socket s = Socket.newSocketStream();
        return new Dialed(s, NettySockets.connect(s, address));
    }

    boolean connectedAtOnce() { // loopback may
        return connectedAtOnce;
    }

    /** Registers the socket in {@code sockets}; its completions go to {@code owner}. */
    void register(RingSockets sockets, Readiness owner) throws IOException {
        this.owner = owner;
        register(sockets);
    }

    /** Ends a connect that reported writability: true when connected; throws when it failed. */
    boolean finishConnect() throws IOException {
        return socket().finishConnect();
    }

    @Override
    public void ready(boolean in, boolean out, boolean hangup) {
        owner.ready(in, out, hangup);
    }

    /** A send's completion (the transport's tests send on a dialed socket; its endpoint sends in use). */
    @Override
    public void sent(int res) {
        owner.sent(res);
    }
}
