package dev.peregrine.transport.epoll;

import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.NativeEndpoint;
import dev.peregrine.transport.NativeEventLoop;
import dev.peregrine.transport.NativeIo;
import dev.peregrine.transport.NettyLoop;
import dev.peregrine.transport.NettySockets;
import dev.peregrine.transport.Readiness;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The epoll side of one {@link NativeEventLoop}: its Netty thread ({@link NettyEpoll#loop}) and how it
 * accepts. The listener is edge-triggered like every socket here: an event says connections wait, and
 * {@code acceptReady} remembers it until {@code accept} returns none.
 * <pre>
 *   listener event --&gt; acceptReady --&gt; accept until EAGAIN: at most ACCEPT_BATCH, then again as a task
 *                                      behind the loop's other work; each descriptor to NativeEventLoop.dispatch
 *                                      at maxConnections: paused, acceptReady kept, until the limit's
 *                                      release resumes this loop ({@link #resumeAccept})
 *                                      an accept error (out of descriptors): the tick tries again
 * </pre>
 * Nothing is disarmed while paused: the kernel keeps new connections in the backlog.
 *
 * <p>Thread: {@link #thread} from any thread; the rest on the loop.
 */
final class EpollIo implements NativeIo, Readiness {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    /** Connections accepted per turn before other work runs (the rest follow as a task). */
    private static final int ACCEPT_BATCH = 64;

    private final NativeEventLoop owner;
    private final NettyLoop loop;
    private final NettyEpoll.Fd listener;
    private final byte[] acceptRecord = new byte[NettyEpoll.ACCEPT_ADDRESS_BYTES];
    private final Runnable acceptTask = this::acceptTask;
    /** The listener may hold connections not yet accepted (edge-triggered: remembered until EAGAIN). */
    private boolean acceptReady;
    private boolean acceptQueued;
    private boolean acceptFailing;
    /** The server is at maxConnections: accepting waits for {@link ConnectionLimit#release}. */
    private boolean acceptPaused;

    EpollIo(NativeEventLoop owner, NativeIo.Listener listener, String threadName) {
        this.owner = owner;
        this.listener = (NettyEpoll.Fd) listener;
        this.loop = NettyEpoll.loop(threadName);
    }

    @Override
    public NettyLoop thread() {
        return loop;
    }

    @Override
    public void start() throws IOException {
        if (listener != null) {
            listener.register(loop, this);
        }
    }

    /** The listener is ready: new connections wait. */
    @Override
    public void ready(boolean in, boolean out, boolean hangup) {
        acceptReady = true;
        if (!acceptQueued && !acceptPaused) {
            accept();
        }
    }

    private void acceptTask() {
        acceptQueued = false;
        if (acceptReady && !acceptPaused) {
            accept();
        }
    }

    @Override
    public void tick() {
        if (acceptReady && !acceptQueued && !acceptPaused) {
            accept();
        }
    }

    /** The server has {@code maxConnections} open: stop accepting until the limit resumes this loop. */
    private void pauseAccept() {
        ConnectionLimit limit = owner.limit();
        acceptPaused = true;
        owner.context().metrics().acceptPauses++;
        LOG.log(System.Logger.Level.DEBUG, "event loop {0} stops accepting: {1} connections open",
                String.valueOf(owner.index()), String.valueOf(limit.open()));
        if (limit.pause(owner.index())) {
            resumeAccept();
        }
    }

    @Override
    public void resumeAccept() {
        acceptPaused = false;
        if (acceptReady && !acceptQueued) {
            accept();
        }
    }

    private void accept() {
        if (owner.stopping()) {
            return;
        }
        ConnectionLimit limit = owner.limit();
        for (int i = 0; i < ACCEPT_BATCH; i++) {
            if (!limit.tryAcquire()) {
                pauseAccept();
                return;
            }
            int fd;
            try {
                fd = listener.accept(acceptRecord);
            } catch (IOException e) {
                limit.release();
                // Out of descriptors, say: the connection stays queued; the tick tries again.
                if (!acceptFailing) {
                    acceptFailing = true;
                    LOG.log(System.Logger.Level.WARNING, "accept failed on event loop " + owner.index() + ": " + e.getMessage());
                }
                return;
            }
            acceptFailing = false;
            if (fd < 0) {
                limit.release();
                acceptReady = false;
                return;
            }
            owner.dispatch(fd, NettyEpoll.Fd.acceptedAddress(acceptRecord));
        }
        acceptQueued = loop.execute(acceptTask); // more may wait: after the loop's other work
    }

    @Override
    public void closeListener() {
        if (listener != null) {
            listener.close();
        }
    }

    @Override
    public NativeEndpoint accepted(int fd, InetSocketAddress remote, ConnectionLimit limit) throws IOException {
        NettyEpoll.Fd socket = NettyEpoll.Fd.connected(fd);
        return new EpollEndpoint(owner, loop, socket, remote, limit);
    }

    @Override
    public void closeAccepted(int fd) {
        NettySockets.closeAccepted(fd);
    }

    @Override
    public Dialing dial(InetSocketAddress address) throws IOException {
        NettyEpoll.Fd fd = NettyEpoll.Fd.connecting(address);
        return new Dialing() {
            @Override
            public boolean start(Readiness owner) throws IOException {
                fd.register(loop, owner);
                if (fd.connectedAtOnce()) {
                    return true;
                }
                fd.writeInterest(true); // EPOLLOUT reports the end of the connect
                return false;
            }

            @Override
            public boolean finish() throws IOException {
                return fd.finishConnect(); // not yet: EPOLLOUT stays armed
            }

            @Override
            public NativeEndpoint endpoint(InetSocketAddress remote, ConnectionLimit limit) {
                fd.writeInterest(false);
                EpollEndpoint e = new EpollEndpoint(owner, loop, fd, remote, limit);
                fd.owner(e);
                return e;
            }

            @Override
            public void close() {
                fd.close();
            }
        };
    }
}
