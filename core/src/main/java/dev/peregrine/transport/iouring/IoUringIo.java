package dev.peregrine.transport.iouring;

import dev.peregrine.transport.ConnectionLimit;
import dev.peregrine.transport.NativeEndpoint;
import dev.peregrine.transport.NativeEventLoop;
import dev.peregrine.transport.NativeIo;
import dev.peregrine.transport.NettyLoop;
import dev.peregrine.transport.NettySockets;
import dev.peregrine.transport.Readiness;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;

/**
 * The io_uring side of one {@link NativeEventLoop}: its Netty thread and ring ({@link NettyIoUring#loop}),
 * its provided-buffer ring for receive ({@link RecvRing}, where it can be had), its send slots, and how it accepts: one multishot {@code IORING_OP_ACCEPT} entry on the listener, each
 * completion a connection handed to {@link NativeEventLoop#dispatch}.
 *
 * <p><b>maxConnections.</b> A multishot accept takes connections without asking, so the limit is
 * applied as each completion arrives: a descriptor that gets no slot is parked (it is a connection the
 * kernel has set up, as one in the backlog would be), the accept entry is cancelled, and the loop waits
 * for {@link ConnectionLimit#release}; resuming adopts the parked descriptors first, then arms accept again.
 * <pre>
 *   accept completion (fd)  --&gt; slot free: dispatch;  else park(fd), cancel the entry, pause
 *   accept completion (-errno, entry ended) --&gt; -ECANCELED after a pause ended: arm again;
 *                                              else (out of descriptors): the tick arms it again
 *   resumeAccept            --&gt; dispatch parked descriptors as far as the limit allows; none left: arm again
 * </pre>
 *
 * <p>Thread: {@link #thread} from any thread; the rest on the loop.
 */
final class IoUringIo implements NativeIo, NettyIoUring.Acceptor {
    private static final System.Logger LOG = System.getLogger("dev.peregrine");
    /** {@code -ECANCELED}: the result of an entry cancelled by {@code IORING_OP_ASYNC_CANCEL}. */
    private static final int ECANCELED = -125;

    private final NativeEventLoop owner;
    private final NettyLoop loop;
    /** The loop's sockets, registered with Netty by the 32,768, and their send slots. */
    private final RingSockets sockets;
    private final Listening listener;
    /** The loop's receive buffers, or null: connections poll and recv. */
    private RecvRing recvRing;
    private final Runnable resumeAcceptTask = this::resumeAccept;
    /** Accepted descriptors waiting for a slot under maxConnections (a small queue, in arrival order). */
    private int[] parked = new int[8];
    private int parkedCount;
    private boolean acceptPaused;
    /** An accept completion failed (out of descriptors, say): the tick arms it again. */
    private boolean acceptFailing;

    IoUringIo(NativeEventLoop owner, NativeIo.Listener listener, String threadName) {
        this.owner = owner;
        this.listener = (Listening) listener;
        this.recvRing = RecvRing.create(owner.context().config().recvRingBuffers());
        this.loop = NettyIoUring.loop(threadName, recvRing);
        this.sockets = new RingSockets(loop, this);
    }

    /** The loop this is the io_uring side of. */
    NativeEventLoop owner() {
        return owner;
    }

    @Override
    public NettyLoop thread() {
        return loop;
    }

    /** Registers the listener and arms its accept on the loop. */
    @Override
    public void start() throws IOException {
        if (listener != null) {
            listener.register(sockets, this);
            loop.execute(listener::armAccept);
        }
    }

    @Override
    public void tick() {
        if (acceptFailing && !acceptPaused && !listener.acceptArmed()) {
            listener.armAccept();
        }
    }

    @Override
    public void accepted(int fd, boolean more) {
        boolean stopping = owner.stopping();
        if (fd < 0) {
            if (more || stopping || acceptPaused) {
                return;
            }
            if (fd == ECANCELED) {
                listener.armAccept(); // the entry a pause cancelled ended after the pause was over
            } else if (!acceptFailing) {
                // Out of descriptors, say: the connection stays queued; the tick arms the accept again.
                acceptFailing = true;
                LOG.log(System.Logger.Level.WARNING, "accept failed on event loop " + owner.index() + ": errno " + (-fd));
            }
            return;
        }
        if (stopping) {
            NettySockets.closeAccepted(fd);
            return;
        }
        acceptFailing = false;
        if (acceptPaused || !owner.limit().tryAcquire()) {
            park(fd);
            return;
        }
        owner.dispatch(fd, null);
        if (!more && !acceptPaused) {
            listener.armAccept(); // single-shot accept, or a multishot the kernel ended
        }
    }

    private void park(int fd) {
        if (parkedCount == parked.length) {
            parked = Arrays.copyOf(parked, parked.length * 2);
        }
        parked[parkedCount++] = fd;
        if (!acceptPaused) {
            acceptPaused = true;
            listener.cancelAccept();
            owner.context().metrics().acceptPauses++;
            LOG.log(System.Logger.Level.DEBUG, "event loop {0} stops accepting: {1} connections open",
                    String.valueOf(owner.index()), String.valueOf(owner.limit().open()));
            if (owner.limit().pause(owner.index())) {
                loop.execute(resumeAcceptTask);
            }
        }
    }

    @Override
    public void resumeAccept() {
        if (!acceptPaused || owner.stopping()) {
            return;
        }
        ConnectionLimit limit = owner.limit();
        int taken = 0;
        while (taken < parkedCount && limit.tryAcquire()) {
            owner.dispatch(parked[taken++], null);
        }
        System.arraycopy(parked, taken, parked, 0, parkedCount - taken);
        parkedCount -= taken;
        if (parkedCount > 0) {
            if (limit.pause(owner.index())) {
                loop.execute(resumeAcceptTask);
            }
            return;
        }
        acceptPaused = false;
        listener.armAccept(); // a cancelled entry's last completion may still be due: it parks what it brings
    }

    @Override
    public void closeListener() {
        if (listener != null) {
            listener.close(); // cancels the accept entry first
        }
        for (int i = 0; i < parkedCount; i++) {
            NettySockets.closeAccepted(parked[i]);
        }
        parkedCount = 0;
    }

    @Override
    public NativeEndpoint accepted(int fd, InetSocketAddress remote, ConnectionLimit limit) throws IOException {
        NettyIoUring.Fd.connected(fd);
        return new IoUringEndpoint(sockets, fd, remote != null ? remote : NettyIoUring.Fd.peerAddress(fd), limit);
    }

    /**
     * The loop's receive ring once it is reachable, or null (connections poll and recv). Asked by each new
     * connection; the first finds the ring (one INFO line when it cannot). Thread: the loop.
     */
    RecvRing recvRing() {
        RecvRing r = recvRing;
        if (r != null && !r.attach()) {
            recvRing = r = null;
        }
        return r;
    }

    /** The receive ring as {@link #recvRing} left it (every connection asks that first, when it is made). */
    RecvRing ring() {
        return recvRing;
    }

    @Override
    public void closeAccepted(int fd) {
        NettySockets.closeAccepted(fd);
    }

    @Override
    public Dialing dial(InetSocketAddress address) throws IOException {
        Dialed fd = Dialed.connecting(address);
        return new Dialing() {
            @Override
            public boolean start(Readiness connect) throws IOException {
                fd.register(sockets, connect);
                if (fd.connectedAtOnce()) {
                    return true;
                }
                fd.armWrite(); // POLLOUT reports the end of the connect
                return false;
            }

            @Override
            public boolean finish() throws IOException {
                if (fd.finishConnect()) {
                    return true;
                }
                fd.armWrite();
                return false;
            }

            @Override
            public NativeEndpoint endpoint(InetSocketAddress remote, ConnectionLimit limit) {
                IoUringEndpoint e = new IoUringEndpoint(sockets, fd.descriptor(), remote, limit);
                e.takeOver(fd); // its index in the loop's sockets: its completions now reach the endpoint
                e.armInput(); // the first receive (or read poll)
                return e;
            }

            @Override
            public void close() {
                fd.closeSocket();
            }
        };
    }
}
