package dev.peregrine.transport.iouring;

import dev.peregrine.transport.NativeIo;
import dev.peregrine.transport.NettySockets;
import io.netty.channel.uring.IoUringIoOps;
import io.netty.channel.unix.Socket;

import java.io.IOException;
import java.net.InetSocketAddress;

import static dev.peregrine.transport.iouring.NettyIoUring.IORING_ACCEPT_MULTISHOT;
import static dev.peregrine.transport.iouring.NettyIoUring.IORING_OP_ACCEPT;
import static dev.peregrine.transport.iouring.NettyIoUring.SOCK_CLOEXEC;
import static dev.peregrine.transport.iouring.NettyIoUring.SOCK_NONBLOCK;

/**
 * A loop's listening socket on io_uring: one accept entry (multishot where the kernel has it) whose
 * completions go to an {@link NettyIoUring.Acceptor} ({@link IoUringIo}, which applies maxConnections).
 *
 * <p>Thread: the loop; made, and registered, on the starting thread before the loop serves it.
 */
final class Listening extends NettyIoUring.Fd implements NativeIo.Listener {
    private NettyIoUring.Acceptor acceptor;
    private IoUringIoOps acceptOps;
    private boolean acceptArmed;

    private Listening(Socket s) {
        super(s);
    }

    /** A listening socket bound to {@code address} ({@code SO_REUSEADDR}; {@code SO_REUSEPORT} when asked). */
    static Listening listen(InetSocketAddress address, int backlog, boolean reusePort) throws IOException {
        Socket s = Socket.newSocketStream();
        NettySockets.listen(s, address, backlog, reusePort);
        return new Listening(s);
    }

    /** Registers the listener in {@code sockets}; accepted descriptors go to {@code acceptor}. */
    void register(RingSockets sockets, NettyIoUring.Acceptor acceptor) throws IOException {
        this.acceptor = acceptor;
        register(sockets);
    }

    @Override
    public int localPort() {
        return socket().localAddress().getPort();
    }

    /** Arms the accept entry unless it is armed: multishot where the kernel has it. */
    void armAccept() {
        if (!acceptArmed && !socketClosed()) {
            if (acceptOps == null) {
                short prio = NettyIoUring.multishotAccept() ? IORING_ACCEPT_MULTISHOT : 0;
                acceptOps = new IoUringIoOps(IORING_OP_ACCEPT, (byte) 0, prio, descriptor(), 0L, 0L,
                        0, SOCK_NONBLOCK | SOCK_CLOEXEC, data(false), (short) 0, (short) 0, 0, 0L);
            }
            acceptArmed = submit(acceptOps, IORING_OP_ACCEPT, false);
        }
    }

    /** Whether an accept entry is armed (its cancel may be under way). */
    boolean acceptArmed() {
        return acceptArmed;
    }

    /** Cancels the armed accept entry; its last completion (-ECANCELED, or fds already taken) still comes. */
    void cancelAccept() {
        if (acceptArmed) {
            cancel(IORING_OP_ACCEPT, false);
        }
    }

    @Override
    void acceptCompleted(int res, boolean more) {
        if (!more) {
            acceptArmed = false;
        }
        if (socketClosed()) {
            super.acceptCompleted(res, more);
        } else {
            acceptor.accepted(res, more);
        }
    }

    @Override
    public void ready(boolean in, boolean out, boolean hangup) {
        // a listener arms no poll
    }

    @Override
    public void close() {
        closeSocket();
    }

    @Override
    void closeSocket() {
        if (!socketClosed()) {
            cancelAccept(); // the one entry Fd does not know of
        }
        super.closeSocket();
    }
}

