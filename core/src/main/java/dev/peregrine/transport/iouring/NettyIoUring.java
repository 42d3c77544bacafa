package dev.peregrine.transport.iouring;

import dev.peregrine.transport.NativeIo;
import dev.peregrine.transport.NettyLoop;
import dev.peregrine.transport.NettySockets;
import dev.peregrine.transport.Readiness;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoEvent;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoOps;
import io.netty.channel.unix.Buffer;
import io.netty.channel.unix.Socket;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The one place that speaks Netty's io_uring: everything else in this package sees plain Java types.
 * Netty ({@code netty-transport-native-io_uring}, pinned in the parent pom) is used as an io_uring
 * library only, through its public {@code IoHandle} API: {@link #loop} is one {@link NettyLoop} thread
 * running an {@link IoUringIoHandler} (the ring, Netty's MPSC task queue, an eventfd wake-up, timeouts
 * for scheduled tasks); an {@link Fd} is one socket registered on it as an {@link IoUringIoHandle}, to
 * which we submit submission-queue entries built with {@link IoUringIoOps}'s public constructor (the
 * opcodes and flags below are the kernel's ABI, {@code include/uapi/linux/io_uring.h}). Every entry
 * submitted during a loop turn reaches the kernel in the one {@code io_uring_enter} of the next turn.
 *
 * <p><b>What goes through the ring.</b>
 * <pre>
 *   listener:   IORING_OP_ACCEPT, multishot where the kernel has it (one entry, one completion per
 *               connection, accepted SOCK_NONBLOCK | SOCK_CLOEXEC), else one entry per connection
 *   connection: IORING_OP_RECV, multishot, IOSQE_BUFFER_SELECT from the loop's {@link RecvRing}: one
 *               entry, one completion per buffer filled (the buffer's id in flags &gt;&gt; 16), armed
 *               again only when the kernel ends it (no IORING_CQE_F_MORE) and the connection reads;
 *               where there is no ring, or the ring ran out (ENOBUFS) until it is refilled:
 *               IORING_OP_POLL_ADD (POLLIN | POLLRDHUP), one-shot, armed while the socket has shown
 *               it is empty; IORING_OP_SENDMSG, at most one in flight, from the connection's lent send
 *               buffer; IORING_OP_POLL_ADD (POLLOUT), one-shot, while a connect is under way or output
 *               waits with no send in flight
 *   close:      IORING_OP_ASYNC_CANCEL for each poll, receive or accept still armed (a receive also
 *               while its connection pauses reading), then close(2) -- after the
 *               last send's completion when one is in flight (its entry may not have reached the kernel
 *               yet, and the descriptor's number must not go to another socket before it has); sends
 *               are MSG_DONTWAIT, so that completion comes in the next io_uring_enter
 * </pre>
 * Input arrives in the ring's buffers without a system call of ours, or, without a ring, moves with
 * {@code recv} on our direct buffers' addresses, on the loop thread, when a poll completion says it can:
 * a one-shot poll completes at once when armed on a socket that is already ready, so no readiness is
 * lost between a short read and the re-arming. Output is copied into a send
 * entry, so every connection's output of a loop turn reaches the kernel in that turn's one
 * {@code io_uring_enter} ({@link IoUringEndpoint} explains the send buffer).
 *
 * <p><b>No allocation per request.</b> {@link IoUringIoOps} is immutable and names the descriptor and
 * the memory, so each {@link Fd} builds its entries once and submits the same objects again: the polls
 * are constant, and a send is a {@code SENDMSG} whose {@code msghdr} lives in a slot of native memory
 * the socket keeps from its first send to its close ({@link Slots#take}); only the slot's
 * {@code iovec} (where and how much) changes per send.
 * <pre>
 *   slot (72 bytes, LP64):  0 msg_name = 0 | 8 msg_namelen = 0 | 16 msg_iov = slot + 56 | 24 msg_iovlen = 1
 *                           32 msg_control = 0 | 40 msg_controllen = 0 | 48 msg_flags = 0 |
 *                           56 iov_base (per send) | 64 iov_len (per send)
 * </pre>
 * <p>Nothing outside this file (and {@link RecvRing}, which reaches the provided-buffer ring) (and the shared {@link NettyLoop} and {@link NettySockets}) may name a
 * Netty type, so that the classes of this package load (and
 * {@link IoUringAvailability} answers) when Netty's io_uring jar is not on the class path at all.
 */
final class NettyIoUring {
    // io_uring.h and poll.h: the kernel's ABI, the same on every architecture Netty ships for.
    private static final byte IORING_OP_POLL_ADD = 6;
    private static final byte IORING_OP_ACCEPT = 13;
    private static final byte IORING_OP_ASYNC_CANCEL = 14;
    private static final byte IORING_OP_SENDMSG = 9;
    private static final byte IORING_OP_RECV = 27;
    private static final byte IOSQE_BUFFER_SELECT = 1 << 5;
    private static final short IORING_RECV_MULTISHOT = 1 << 1;
    private static final int IORING_CQE_F_BUFFER = 1;
    private static final int IORING_CQE_BUFFER_SHIFT = 16;
    private static final int MSG_NOSIGNAL = 0x4000;
    /** Makes a send complete at once with {@code -EAGAIN} on a full socket instead of waiting in the kernel. */
    private static final int MSG_DONTWAIT = 0x40;
    private static final short IORING_ACCEPT_MULTISHOT = 1;
    private static final int IORING_CQE_F_MORE = 1 << 1;
    private static final int POLLIN = 0x1;
    private static final int POLLOUT = 0x4;
    private static final int POLLERR = 0x8;
    private static final int POLLHUP = 0x10;
    private static final int POLLRDHUP = 0x2000;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOCK_CLOEXEC = 0x80000;
    /** Bytes of one send slot: a {@code struct msghdr} (56) and its one {@code struct iovec} (16). */
    private static final int SLOT_BYTES = 72;
    private static final int MSG_IOV = 16;
    private static final int MSG_IOVLEN = 24;
    private static final int IOV_BASE = 56;
    private static final int IOV_LEN = 64;
    /** Slots per slab of native memory (a slab is allocated when all slots are taken, and kept). */
    private static final int SLOTS_PER_SLAB = 256;
    /** What each entry is, carried back in its completion ({@code data} of the user data). */
    private static final short DATA_READ = 1;
    private static final short DATA_WRITE = 2;
    private static final short DATA_ACCEPT = 3;
    private static final short DATA_CANCEL = 4;
    private static final short DATA_SEND = 5;
    private static final short DATA_RECV = 6;

    private NettyIoUring() {
    }

    /** {@code null} when io_uring can be used here, else why not (loads Netty's native library and probes once). */
    static String unavailabilityReason() {
        if (IoUring.isAvailable()) {
            return null;
        }
        return NettySockets.reason(IoUring.unavailabilityCause());
    }

    /** A loop thread running Netty's {@link IoUringIoHandler}, with {@code ring} registered when not null. */
    static NettyLoop loop(String threadName, RecvRing ring) {
        IoUring.ensureAvailability();
        return new NettyLoop(threadName, ring != null ? ring.factory() : IoUringIoHandler.newFactory());
    }

    /** Whether one accept entry serves every connection (kernel 5.19+). */
    static boolean multishotAccept() {
        return IoUring.isAcceptMultishotEnabled();
    }

    /** What a registered listener hears. Called on the loop thread. */
    interface Acceptor {
        /**
         * An accept completed.
         *
         * @param fd the new connection's descriptor (non-blocking), or a negative errno
         * @param more whether the accept entry is still armed (multishot); when false, arm it again
         */
        void accepted(int fd, boolean more);
    }

    /**
     * One loop's send slots: slabs of native memory, each slot a {@code msghdr} set up once and its
     * {@code iovec} filled per send (see the class comment), taken by a socket at its first send and given
     * back at its close. A slab is allocated when all slots are taken, and kept until the loop ends.
     *
     * <p>Thread: the loop.
     */
    static final class Slots {
        /** Slabs of native memory and the free slots' numbers (slab * SLOTS_PER_SLAB + index). */
        private ByteBuffer[] slabs = new ByteBuffer[0];
        private int[] freeSlots = new int[0];
        private int freeCount;

        /** Takes a send slot (its msghdr set up, its iovec to fill per send). */
        int take() {
            if (freeCount == 0) {
                int slab = slabs.length;
                ByteBuffer b = ByteBuffer.allocateDirect(SLOTS_PER_SLAB * SLOT_BYTES).order(java.nio.ByteOrder.nativeOrder());
                long base = Buffer.memoryAddress(b);
                for (int i = 0; i < SLOTS_PER_SLAB; i++) {
                    b.putLong(i * SLOT_BYTES + MSG_IOV, base + i * SLOT_BYTES + IOV_BASE);
                    b.putLong(i * SLOT_BYTES + MSG_IOVLEN, 1);
                }
                slabs = java.util.Arrays.copyOf(slabs, slab + 1);
                slabs[slab] = b;
                freeSlots = java.util.Arrays.copyOf(freeSlots, (slab + 1) * SLOTS_PER_SLAB);
                for (int i = SLOTS_PER_SLAB - 1; i >= 0; i--) {
                    freeSlots[freeCount++] = slab * SLOTS_PER_SLAB + i;
                }
            }
            return freeSlots[--freeCount];
        }

        /** Gives a slot back once no entry can read it. */
        void give(int slot) {
            freeSlots[freeCount++] = slot;
        }

        /** The slab holding {@code slot}. */
        ByteBuffer slab(int slot) {
            return slabs[slot / SLOTS_PER_SLAB];
        }
    }

    /**
     * One non-blocking TCP socket, listening or connected, and its registration on a {@link NettyLoop}. At
     * most one read poll, one write poll and one accept entry are armed at a time; each completion
     * disarms its one-shot entry before the owner hears it, so the owner may arm it again from there.
     *
     * <p>Thread: the loop it is registered on ({@link #listen} and {@link #register} may run on the
     * starting thread before the loop serves it).
     */
    static final class Fd implements IoUringIoHandle, NativeIo.Listener {
        private final Socket socket;
        private NettyLoop loop;
        private Slots slots;
        private IoRegistration registration;
        private Readiness owner;
        private Acceptor acceptor;
        /** User data of the entries armed now, 0 when none (what a cancel names). */
        private long readPoll;
        private long writePoll;
        private long accept;
        private long send;
        private long recv;
        /** The armed receive's cancel is submitted (its last completion is due). */
        private boolean recvCancelled;
        /** The entries this socket submits, built once (see the class comment). */
        private IoUringIoOps readOps;
        private IoUringIoOps writeOps;
        private IoUringIoOps acceptOps;
        private IoUringIoOps sendOps;
        private IoUringIoOps recvOps;
        /** This socket's send slot (-1: none yet), the slab it is in and its offset there. */
        private int slot = -1;
        private ByteBuffer slotSlab;
        private int slotOffset;
        /** Closed while a send was in flight: close(2) waits for its completion. */
        private boolean closeAfterSend;
        private boolean closed;
        private boolean connectedAtOnce;

        private Fd(Socket socket) {
            this.socket = socket;
        }

        /** A listening socket bound to {@code address} ({@code SO_REUSEADDR}; {@code SO_REUSEPORT} when asked). */
        static Fd listen(InetSocketAddress address, int backlog, boolean reusePort) throws IOException {
            Socket s = Socket.newSocketStream();
            NettySockets.listen(s, address, backlog, reusePort);
            return new Fd(s);
        }

        /** Takes over an accepted descriptor, with {@code TCP_NODELAY} on. */
        static Fd connected(int fd) throws IOException {
            Socket s = new Socket(fd);
            NettySockets.noDelay(s);
            return new Fd(s);
        }

        /**
         * A new socket (TCP_NODELAY) with a non-blocking connect to {@code address} started; when
         * {@link #connectedAtOnce} is false, the connect ends with writability, then {@link #finishConnect}.
         */
        static Fd connecting(InetSocketAddress address) throws IOException {
            Socket s = Socket.newSocketStream();
            Fd fd = new Fd(s);
            fd.connectedAtOnce = NettySockets.connect(s, address);
            return fd;
        }

        boolean connectedAtOnce() { // loopback may
            return connectedAtOnce;
        }

        /** Ends a connect that reported writability: true when connected; throws when it failed. */
        boolean finishConnect() throws IOException {
            return socket.finishConnect();
        }

        /** From now on poll completions go to {@code owner} (a connected socket passing to its endpoint). */
        void owner(Readiness owner) {
            this.owner = owner;
        }

        @Override
        public int localPort() {
            return socket.localAddress().getPort();
        }

        /** The descriptor's number (for a {@code FileSender}; valid until {@link #close}). */
        int descriptor() {
            return socket.intValue();
        }

        /** The peer's address ({@code getpeername}), or null when the socket no longer has one. */
        InetSocketAddress remoteAddress() {
            return socket.remoteAddress();
        }

        /**
         * Registers this socket on {@code loop}; completions go to {@code owner} or {@code acceptor}. On
         * the loop thread the registration is immediate; from another thread this waits for it. Arms nothing.
         */
        void register(NettyLoop loop, Slots slots, Readiness owner, Acceptor acceptor) throws IOException {
            this.loop = loop;
            this.slots = slots;
            this.owner = owner;
            this.acceptor = acceptor;
            registration = loop.register(this);
        }

        /** Arms the read poll (POLLIN | POLLRDHUP) unless it is armed. */
        void armRead() {
            if (readPoll == 0 && !closed) {
                if (readOps == null) {
                    readOps = new IoUringIoOps(IORING_OP_POLL_ADD, (byte) 0, (short) 0, socket.intValue(), 0L, 0L,
                            0, POLLIN | POLLRDHUP, DATA_READ, (short) 0, (short) 0, 0, 0L);
                }
                readPoll = submit(readOps);
            }
        }

        /**
         * Arms the multishot receive into buffer group {@code group} unless it is armed: every completion
         * until the one without {@code IORING_CQE_F_MORE} goes to {@link Readiness#received}.
         */
        void armRecv(short group) {
            if (recv == 0 && !closed) {
                if (recvOps == null) {
                    // len 0: each completion fills at most one buffer of the group (the kernel wants 0 for multishot).
                    recvOps = new IoUringIoOps(IORING_OP_RECV, IOSQE_BUFFER_SELECT, IORING_RECV_MULTISHOT,
                            socket.intValue(), 0L, 0L, 0, 0, DATA_RECV, group, (short) 0, 0, 0L);
                }
                recvCancelled = false;
                recv = submit(recvOps);
            }
        }

        /** Whether a receive is armed (its cancel may be under way). */
        boolean receiving() {
            return recv != 0;
        }

        /** Cancels the armed receive, once; its last completion (-ECANCELED, or bytes) still comes. */
        void cancelRecv() {
            if (recv != 0 && !recvCancelled) {
                recvCancelled = true;
                cancel(recv);
            }
        }

        /** Arms the write poll (POLLOUT) unless it is armed. */
        void armWrite() {
            if (writePoll == 0 && !closed) {
                if (writeOps == null) {
                    writeOps = new IoUringIoOps(IORING_OP_POLL_ADD, (byte) 0, (short) 0, socket.intValue(), 0L, 0L,
                            0, POLLOUT, DATA_WRITE, (short) 0, (short) 0, 0, 0L);
                }
                writePoll = submit(writeOps);
            }
        }

        /** Arms the accept entry unless it is armed: multishot where the kernel has it. */
        void armAccept() {
            if (accept == 0 && !closed) {
                if (acceptOps == null) {
                    short prio = multishotAccept() ? IORING_ACCEPT_MULTISHOT : 0;
                    acceptOps = new IoUringIoOps(IORING_OP_ACCEPT, (byte) 0, prio, socket.intValue(), 0L, 0L,
                            0, SOCK_NONBLOCK | SOCK_CLOEXEC, DATA_ACCEPT, (short) 0, (short) 0, 0, 0L);
                }
                accept = submit(acceptOps);
            }
        }

        /**
         * Submits a send of {@code length} bytes of direct buffer {@code b} from index {@code from}; they
         * must stay untouched until {@link Readiness#sent} reports the completion. One at a time
         * ({@link #sending}).
         */
        void send(ByteBuffer b, int from, int length) {
            if (closed && !closeAfterSend) {
                return;
            }
            if (sendOps == null) {
                slot = slots.take();
                slotSlab = slots.slab(slot);
                slotOffset = (slot % SLOTS_PER_SLAB) * SLOT_BYTES;
                long msghdr = Buffer.memoryAddress(slotSlab) + slotOffset;
                sendOps = new IoUringIoOps(IORING_OP_SENDMSG, (byte) 0, (short) 0, socket.intValue(), 0L, msghdr,
                        1, MSG_NOSIGNAL | MSG_DONTWAIT, DATA_SEND, (short) 0, (short) 0, 0, 0L);
            }
            slotSlab.putLong(slotOffset + IOV_BASE, loop.address(b) + from);
            slotSlab.putLong(slotOffset + IOV_LEN, length);
            send = submit(sendOps);
        }

        /** Whether a send is in flight. */
        boolean sending() {
            return send != 0;
        }

        /** Whether an accept entry is armed (its cancel may be under way). */
        boolean acceptArmed() {
            return accept != 0;
        }

        /** Cancels the armed accept entry; its last completion (-ECANCELED, or fds already taken) still comes. */
        void cancelAccept() {
            cancel(accept);
        }

        private long submit(IoUringIoOps ops) {
            return registration.submit(ops); // 0 once the registration is cancelled: nothing armed
        }

        private void cancel(long userData) {
            if (userData != 0 && registration != null && registration.isValid()) {
                registration.submit(new IoUringIoOps(IORING_OP_ASYNC_CANCEL, (byte) 0, (short) 0, -1, 0L, userData,
                        0, 0, DATA_CANCEL, (short) 0, (short) 0, 0, 0L));
            }
        }

        /** Reads into {@code dst} from its position to its limit; returns bytes read, 0 if none, -1 at EOF. */
        int read(ByteBuffer dst) throws IOException {
            return loop.read(socket, dst);
        }

        /** Sends FIN after the bytes already written. */
        void shutdownOutput() {
            try {
                socket.shutdown(false, true);
            } catch (IOException | RuntimeException e) {
                // the peer is gone (ENOTCONN comes as NotYetConnectedException); the close that follows cleans up
            }
        }

        /**
         * Cancels every armed entry (an armed poll holds the socket open in the kernel: without the
         * cancel, close(2) would not end the connection), gives up the registration once their last
         * completions came, and closes the descriptor. Idempotent. Netty calls it for sockets still
         * registered when the loop shuts down.
         */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (registration != null) {
                cancel(readPoll);
                cancel(writePoll);
                cancel(accept);
                cancelRecv();
                if (send != 0) {
                    // Non-blocking, it completes in the next io_uring_enter; the owner may send on from there
                    // (the bytes written before the close), and the descriptor closes after the last one.
                    closeAfterSend = true;
                    return;
                }
                registration.cancel();
            }
            closeNow();
        }

        /** close(2), and the send slot back to the loop: no entry of this socket can read it any more. */
        private void closeNow() {
            if (slot >= 0) {
                slots.give(slot);
                slot = -1;
                slotSlab = null;
            }
            NettySockets.closeQuietly(socket);
        }

        /**
         * A completion of this socket's entries. Nothing may escape to Netty: its loop logs a WARNING and
         * sleeps 100 ms for any exception a handle throws, so the owners catch what their work throws.
         */
        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            IoUringIoEvent e = (IoUringIoEvent) event;
            int res = e.res();
            switch (e.data()) {
                case DATA_READ:
                    readPoll = 0;
                    if (!closed) {
                        // A failed poll (-errno) is worth a read too: the read reports the error.
                        int ev = res < 0 ? POLLERR : res;
                        owner.ready(true, false, (ev & (POLLRDHUP | POLLHUP | POLLERR)) != 0);
                    }
                    break;
                case DATA_WRITE:
                    writePoll = 0;
                    if (!closed) {
                        int ev = res < 0 ? POLLERR : res;
                        owner.ready((ev & (POLLHUP | POLLERR)) != 0, true, (ev & (POLLHUP | POLLERR)) != 0);
                    }
                    break;
                case DATA_ACCEPT: {
                    boolean more = (e.flags() & IORING_CQE_F_MORE) != 0;
                    if (!more) {
                        accept = 0;
                    }
                    if (closed) {
                        if (res >= 0) {
                            NettySockets.closeAccepted(res);
                        }
                    } else {
                        acceptor.accepted(res, more);
                    }
                    break;
                }
                case DATA_RECV: {
                    int flags = e.flags();
                    boolean more = (flags & IORING_CQE_F_MORE) != 0;
                    if (!more) {
                        recv = 0;
                    }
                    int bid = (flags & IORING_CQE_F_BUFFER) != 0 ? flags >>> IORING_CQE_BUFFER_SHIFT : -1;
                    owner.received(res, bid, more); // also after close: a buffer named here goes back to the ring
                    break;
                }
                case DATA_SEND:
                    send = 0;
                    owner.sent(res); // also after close: the owner sends on or frees the send buffer
                    if (closeAfterSend && send == 0) {
                        closeAfterSend = false;
                        registration.cancel();
                        closeNow();
                    }
                    break;
                default:
                    break; // a cancel's own completion
            }
        }
    }
}
