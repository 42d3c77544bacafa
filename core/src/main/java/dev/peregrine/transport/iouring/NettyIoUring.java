package dev.peregrine.transport.iouring;

import dev.peregrine.transport.NativeIo;
import dev.peregrine.transport.NettyLoop;
import dev.peregrine.transport.NettySockets;
import dev.peregrine.transport.Readiness;
import io.netty.channel.uring.IoUring;
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
 * for scheduled tasks); an {@link Fd} is one socket on it, which submits submission-queue entries built
 * with {@link IoUringIoOps}'s public constructor (the opcodes and flags below are the kernel's ABI,
 * {@code include/uapi/linux/io_uring.h}) through the registration it shares with the loop's other
 * sockets ({@link RingSockets}: one {@code IoUringIoHandle} per 32,768 sockets, not one each). Every
 * entry submitted during a loop turn reaches the kernel in the one {@code io_uring_enter} of the next
 * turn. The connection's endpoint is its {@code Fd} ({@link IoUringEndpoint} extends it), so an idle
 * connection is one object of ours here and its send entry; a listener is a {@link Listening}, a
 * connect under way a {@link Dialed}.
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
 *               it is empty; IORING_OP_SEND ({@link DirectSend}), at most one in flight, from the
 *               connection's lent send buffer (IORING_OP_SENDMSG where it cannot be had, and before
 *               the loop's first completion); IORING_OP_POLL_ADD (POLLOUT), one-shot, while a connect
 *               is under way or output waits with no send in flight
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
 * the memory, so each {@link Fd} builds the entries it submits again and again once, at their first use,
 * and submits the same objects again: the polls are constant. A send names its bytes, which change
 * every time, so it takes no {@link IoUringIoOps}: {@link DirectSend} writes an {@code IORING_OP_SEND}
 * entry straight into the submission queue, as Netty's own fast path does. Where that cannot be had
 * (Netty's package not open to us), a send is a {@code SENDMSG} whose {@code msghdr} lives in a slot of
 * native memory the socket keeps from its first send to its close ({@link Slots#take}); only the slot's
 * {@code iovec} (where and how much) changes per send. The multishot receive's entry alone is built each
 * time it is armed (at the start, then only after the kernel ended it, a pause or a dry ring), so that
 * an idle connection does not keep it.
 * <pre>
 *   slot (72 bytes, LP64):  0 msg_name = 0 | 8 msg_namelen = 0 | 16 msg_iov = slot + 56 | 24 msg_iovlen = 1
 *                           32 msg_control = 0 | 40 msg_controllen = 0 | 48 msg_flags = 0 |
 *                           56 iov_base (per send) | 64 iov_len (per send)
 * </pre>
 * <p>Nothing outside this file, {@link RingSockets}, {@link Listening}, {@link Dialed}, {@link RecvRing}
 * (which reaches the provided-buffer ring) and {@link DirectSend} (which reaches the submission queue)
 * (and the shared {@link NettyLoop} and {@link NettySockets}) may name a Netty type, so that the classes of this package load (and {@link IoUringAvailability}
 * answers) when Netty's io_uring jar is not on the class path at all. {@link IoUringEndpoint} names
 * none, but extends {@link Fd}: it is loaded only once the transport runs.
 */
final class NettyIoUring {
    // io_uring.h and poll.h: the kernel's ABI, the same on every architecture Netty ships for.
    private static final byte IORING_OP_POLL_ADD = 6;
    static final byte IORING_OP_ACCEPT = 13;
    private static final byte IORING_OP_ASYNC_CANCEL = 14;
    private static final byte IORING_OP_SENDMSG = 9;
    /** A send whose entry names the bytes: no msghdr to import per send ({@link DirectSend}). */
    private static final byte IORING_OP_SEND = 26;
    private static final byte IORING_OP_RECV = 27;
    private static final byte IOSQE_BUFFER_SELECT = 1 << 5;
    private static final short IORING_RECV_MULTISHOT = 1 << 1;
    private static final int IORING_CQE_F_BUFFER = 1;
    private static final int IORING_CQE_BUFFER_SHIFT = 16;
    private static final int MSG_NOSIGNAL = 0x4000;
    /** Makes a send complete at once with {@code -EAGAIN} on a full socket instead of waiting in the kernel. */
    private static final int MSG_DONTWAIT = 0x40;
    static final short IORING_ACCEPT_MULTISHOT = 1;
    private static final int IORING_CQE_F_MORE = 1 << 1;
    private static final int POLLIN = 0x1;
    private static final int POLLOUT = 0x4;
    private static final int POLLERR = 0x8;
    private static final int POLLHUP = 0x10;
    private static final int POLLRDHUP = 0x2000;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    /** Bytes of one send slot: a {@code struct msghdr} (56) and its one {@code struct iovec} (16). */
    private static final int SLOT_BYTES = 72;
    private static final int MSG_IOV = 16;
    private static final int MSG_IOVLEN = 24;
    private static final int IOV_BASE = 56;
    private static final int IOV_LEN = 64;
    /** Slots per slab of native memory (a slab is allocated when all slots are taken, and kept). */
    private static final int SLOTS_PER_SLAB = 256;

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
        return new NettyLoop(threadName, ring != null ? ring.factory() : IoUringIoHandler.newFactory(),
                false); // a run drains and submits until idle: not one wait (FineWaitHandler)
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

        /** Where {@code slot} starts in its slab. */
        int offset(int slot) {
            return (slot % SLOTS_PER_SLAB) * SLOT_BYTES;
        }
    }

    /**
     * One non-blocking TCP socket, listening, connecting or connected, on a loop's {@link RingSockets}:
     * its descriptor, what it has armed, and its completions, which it reports to itself as
     * {@link Readiness} (the connection's endpoint extends it; {@link Listening} and {@link Dialed}
     * pass them on). At most one read poll, one write poll, one receive, one send and one accept entry
     * are armed at a time; each completion disarms its one-shot entry before the socket hears it, so it
     * may arm it again from there.
     *
     * <p><b>What an idle connection keeps</b> (the fields below; where sends are {@code SENDMSG}s, a
     * 72-byte {@link IoUringIoOps} and a send slot once it has sent): no registration of its own
     * ({@link RingSockets} registers sockets by the 32,768), no {@link Socket} while the ring brings its
     * input (made at the first {@code recv(2)} of the poll path), no receive entry (the multishot
     * receive's is built each time it is armed: at the start, and again only after the kernel ended it, a
     * pause, or the ring ran dry), no send entry ({@link DirectSend} writes sends into the queue), no user
     * data (a cancel computes it, {@link RingSockets#userData}). {@code state} holds the flags:
     * <pre>
     *   bit 0 READ_ARMED   1 WRITE_ARMED   2 RECV_ARMED   3 RECV_CANCELLED (its last completion is due)
     *       4 SENDING      5 CLOSE_AFTER_SEND (close(2) waits for the send's completion)   6 CLOSED
     * </pre>
     * {@code pending} counts the entries whose last completion has not come (cancels included): the
     * socket keeps its index in {@link RingSockets} until it is 0 after the close, so no completion can
     * reach another socket.
     *
     * <p>Thread: the loop it is registered on ({@link #register} of a listener may run on the starting
     * thread before the loop serves it).
     */
    abstract static class Fd implements Readiness {
        private static final byte READ_ARMED = 1;
        private static final byte WRITE_ARMED = 1 << 1;
        private static final byte RECV_ARMED = 1 << 2;
        private static final byte RECV_CANCELLED = 1 << 3;
        private static final byte SENDING = 1 << 4;
        private static final byte CLOSE_AFTER_SEND = 1 << 5;
        private static final byte CLOSED = 1 << 6;

        private final int descriptor;
        /** Netty's view of the descriptor, made when a call of Netty's needs it (null while idle on the ring). */
        private Socket socket;
        private RingSockets sockets;
        /** This socket's index in {@link #sockets} (-1: not registered, or given back). */
        private int index = -1;
        /** This socket's send slot (-1: none yet). */
        private int slot = -1;
        private byte pending;
        private byte state;
        /** The entries this socket submits again and again, built at their first use (see the class comment). */
        private IoUringIoOps readOps;
        private IoUringIoOps writeOps;
        private IoUringIoOps sendOps;

        /** The user data's {@code data} of this socket's entries (the write poll's when {@code write}). */
        final short data(boolean write) {
            return sockets.data(index, write);
        }

        /** An accepted socket of {@code sockets} (registered by {@link #register}). */
        Fd(int descriptor, RingSockets sockets) {
            this.descriptor = descriptor;
            this.sockets = sockets;
        }

        Fd(Socket socket) {
            this.descriptor = socket.intValue();
            this.socket = socket;
        }

        /** Takes over an accepted descriptor, with {@code TCP_NODELAY} on (closes it on failure). */
        static int connected(int fd) throws IOException {
            NettySockets.noDelay(new Socket(fd));
            return fd;
        }

        /** The descriptor's number (for a {@code FileSender}; valid until {@link #closeSocket}). */
        final int descriptor() {
            return descriptor;
        }

        /** Netty's view of the descriptor (made at the first call that needs one, then kept). */
        final Socket socket() {
            Socket s = socket;
            if (s == null) {
                s = socket = new Socket(descriptor);
            }
            return s;
        }

        /** The peer's address ({@code getpeername}) of {@code fd}, or null when the socket no longer has one. */
        static InetSocketAddress peerAddress(int fd) {
            return new Socket(fd).remoteAddress();
        }

        /**
         * Registers this socket in {@code sockets}, whose loop hears its completions. On the loop thread,
         * or (a listener) the starting thread before the loop serves it. Arms nothing.
         */
        final void register(RingSockets sockets) throws IOException {
            this.sockets = sockets;
            index = sockets.add(this);
        }

        /** The loop's sockets this one is registered in (null before). */
        final RingSockets sockets() {
            return sockets;
        }

        /**
         * Becomes the socket {@code from} was (a connected socket passing to its endpoint): its index,
         * what it armed and built; {@code from} is left without any.
         */
        final void takeOver(Fd from) {
            sockets = from.sockets;
            index = from.index;
            slot = from.slot;
            pending = from.pending;
            state = from.state;
            // not from.socket: the descriptor is closed by its number; the endpoint makes one if it needs it
            readOps = from.readOps;
            writeOps = from.writeOps;
            sendOps = from.sendOps;
            from.index = -1;
            from.slot = -1;
            from.state = CLOSED;
            if (index >= 0) {
                sockets.replace(index, this);
            }
        }

        final boolean socketClosed() {
            return (state & CLOSED) != 0;
        }

        /** Arms the read poll (POLLIN | POLLRDHUP) unless it is armed. */
        final void armRead() {
            if ((state & (READ_ARMED | CLOSED)) == 0) {
                if (readOps == null) {
                    readOps = new IoUringIoOps(IORING_OP_POLL_ADD, (byte) 0, (short) 0, descriptor, 0L, 0L,
                            0, POLLIN | POLLRDHUP, sockets.data(index, false), (short) 0, (short) 0, 0, 0L);
                }
                if (submit(readOps, IORING_OP_POLL_ADD, false)) {
                    state |= READ_ARMED;
                }
            }
        }

        /**
         * Arms the multishot receive into buffer group {@code group} unless it is armed: every completion
         * until the one without {@code IORING_CQE_F_MORE} goes to {@link Readiness#received}. Its entry is
         * built each time (kept by no idle socket): at the start, and after the kernel ended it, a pause or
         * a dry ring, never per request.
         */
        final void armRecv(short group) {
            if ((state & (RECV_ARMED | CLOSED)) == 0) {
                // len 0: each completion fills at most one buffer of the group (the kernel wants 0 for multishot).
                IoUringIoOps ops = new IoUringIoOps(IORING_OP_RECV, IOSQE_BUFFER_SELECT, IORING_RECV_MULTISHOT,
                        descriptor, 0L, 0L, 0, 0, sockets.data(index, false), group, (short) 0, 0, 0L);
                state &= ~RECV_CANCELLED;
                if (submit(ops, IORING_OP_RECV, false)) {
                    state |= RECV_ARMED;
                }
            }
        }

        /** Whether a receive is armed (its cancel may be under way). */
        final boolean receiving() {
            return (state & RECV_ARMED) != 0;
        }

        /** Cancels the armed receive, once; its last completion (-ECANCELED, or bytes) still comes. */
        final void cancelRecv() {
            if ((state & (RECV_ARMED | RECV_CANCELLED)) == RECV_ARMED) {
                state |= RECV_CANCELLED;
                cancel(IORING_OP_RECV, false);
            }
        }

        /** Arms the write poll (POLLOUT) unless it is armed. */
        final void armWrite() {
            if ((state & (WRITE_ARMED | CLOSED)) == 0) {
                if (writeOps == null) {
                    writeOps = new IoUringIoOps(IORING_OP_POLL_ADD, (byte) 0, (short) 0, descriptor, 0L, 0L,
                            0, POLLOUT, sockets.data(index, true), (short) 0, (short) 0, 0, 0L);
                }
                if (submit(writeOps, IORING_OP_POLL_ADD, true)) {
                    state |= WRITE_ARMED;
                }
            }
        }

        /**
         * Submits a send of {@code length} bytes of direct buffer {@code b} from index {@code from}; they
         * must stay untouched until {@link Readiness#sent} reports the completion. One at a time
         * ({@link #sending}).
         */
        final void send(ByteBuffer b, int from, int length) {
            if ((state & (CLOSED | CLOSE_AFTER_SEND)) == CLOSED) {
                return;
            }
            long address = sockets.loop().address(b) + from;
            int direct = sockets.send(index, descriptor, address, length, MSG_NOSIGNAL | MSG_DONTWAIT, IORING_OP_SEND);
            if (direct >= 0) {
                if (direct > 0) {
                    pending++;
                    state |= SENDING;
                }
                return; // 0: the loop is shutting down, nothing queued
            }
            Slots slots = sockets.slots();
            if (sendOps == null) {
                slot = slots.take();
                long msghdr = Buffer.memoryAddress(slots.slab(slot)) + slots.offset(slot);
                sendOps = new IoUringIoOps(IORING_OP_SENDMSG, (byte) 0, (short) 0, descriptor, 0L, msghdr,
                        1, MSG_NOSIGNAL | MSG_DONTWAIT, sockets.data(index, false), (short) 0, (short) 0, 0, 0L);
            }
            ByteBuffer slab = slots.slab(slot);
            int at = slots.offset(slot);
            slab.putLong(at + IOV_BASE, address);
            slab.putLong(at + IOV_LEN, length);
            if (submit(sendOps, IORING_OP_SENDMSG, false)) {
                state |= SENDING;
            }
        }

        /** Whether a send is in flight. */
        final boolean sending() {
            return (state & SENDING) != 0;
        }

        /** Submits {@code ops}, an entry of {@code opcode} ({@code write}: the write poll); false once the loop ends. */
        final boolean submit(IoUringIoOps ops, byte opcode, boolean write) {
            if (sockets.submit(index, ops, opcode, write) == 0) {
                return false; // the loop is shutting down: nothing armed
            }
            pending++;
            return true;
        }

        /** Cancels the armed entry of {@code opcode} ({@code write}: the write poll); its last completion still comes. */
        final void cancel(byte opcode, boolean write) {
            IoUringIoOps ops = new IoUringIoOps(IORING_OP_ASYNC_CANCEL, (byte) 0, (short) 0, -1, 0L,
                    sockets.userData(index, opcode, write), 0, 0, sockets.data(index, false), (short) 0, (short) 0,
                    0, 0L);
            submit(ops, IORING_OP_ASYNC_CANCEL, false);
        }

        /** Reads into {@code dst} from its position to its limit; returns bytes read, 0 if none, -1 at EOF. */
        final int recvSocket(ByteBuffer dst) throws IOException {
            return sockets.loop().read(socket(), dst);
        }

        /** Sends FIN after the bytes already written. */
        final void shutdownSocket() {
            try {
                socket().shutdown(false, true);
            } catch (IOException | RuntimeException e) {
                // the peer is gone (ENOTCONN comes as NotYetConnectedException); the close that follows cleans up
            }
        }

        /**
         * Cancels every armed entry (an armed poll holds the socket open in the kernel: without the
         * cancel, close(2) would not end the connection) and closes the descriptor, after the last send's
         * completion when one is in flight; the index goes back once the last completions came.
         * Idempotent. Called for sockets still registered when the loop shuts down.
         */
        void closeSocket() {
            if (socketClosed()) {
                return;
            }
            state |= CLOSED;
            if (index >= 0) {
                if ((state & READ_ARMED) != 0) {
                    cancel(IORING_OP_POLL_ADD, false);
                }
                if ((state & WRITE_ARMED) != 0) {
                    cancel(IORING_OP_POLL_ADD, true);
                }
                cancelRecv();
                if ((state & SENDING) != 0) {
                    // Non-blocking, it completes in the next io_uring_enter; the owner may send on from there
                    // (the bytes written before the close), and the descriptor closes after the last one.
                    state |= CLOSE_AFTER_SEND;
                    return;
                }
            }
            closeNow();
            release();
        }

        /** close(2), and the send slot back to the loop: no entry of this socket can read it any more. */
        private void closeNow() {
            if (slot >= 0) {
                sockets.slots().give(slot);
                slot = -1;
            }
            if (socket != null) {
                NettySockets.closeQuietly(socket);
            } else {
                NettySockets.closeAccepted(descriptor);
            }
        }

        /** Gives the index back once the socket is closed and no completion of it is due. */
        private void release() {
            if (pending == 0 && index >= 0 && (state & (CLOSED | CLOSE_AFTER_SEND)) == CLOSED) {
                sockets.remove(index);
                index = -1;
            }
        }

        /** An accept completed (listeners only). */
        void acceptCompleted(int res, boolean more) {
            if (res >= 0) {
                NettySockets.closeAccepted(res);
            }
        }

        /**
         * A completion of this socket's entries ({@code write}: the write poll's). Nothing may escape to
         * Netty: its loop logs a WARNING and sleeps 100 ms for any exception a handle throws, so the
         * owners catch what their work throws.
         */
        final void completed(byte opcode, boolean write, int res, int flags) {
            boolean more = (flags & IORING_CQE_F_MORE) != 0;
            if (!more) {
                pending--;
            }
            switch (opcode) {
                case IORING_OP_POLL_ADD:
                    if (write) {
                        state &= ~WRITE_ARMED;
                        if (!socketClosed()) {
                            int ev = res < 0 ? POLLERR : res;
                            ready((ev & (POLLHUP | POLLERR)) != 0, true, (ev & (POLLHUP | POLLERR)) != 0);
                        }
                    } else {
                        state &= ~READ_ARMED;
                        if (!socketClosed()) {
                            // A failed poll (-errno) is worth a read too: the read reports the error.
                            int ev = res < 0 ? POLLERR : res;
                            ready(true, false, (ev & (POLLRDHUP | POLLHUP | POLLERR)) != 0);
                        }
                    }
                    break;
                case IORING_OP_ACCEPT:
                    acceptCompleted(res, more);
                    break;
                case IORING_OP_RECV: {
                    if (!more) {
                        state &= ~RECV_ARMED;
                    }
                    int bid = (flags & IORING_CQE_F_BUFFER) != 0 ? flags >>> IORING_CQE_BUFFER_SHIFT : -1;
                    received(res, bid, more); // also after close: a buffer named here goes back to the ring
                    break;
                }
                case IORING_OP_SEND:
                case IORING_OP_SENDMSG:
                    state &= ~SENDING;
                    sent(res); // also after close: the owner sends on or frees the send buffer
                    if ((state & (CLOSE_AFTER_SEND | SENDING)) == CLOSE_AFTER_SEND) {
                        state &= ~CLOSE_AFTER_SEND;
                        closeNow();
                    }
                    break;
                default:
                    break; // a cancel's own completion
            }
            if (socketClosed()) {
                release();
            }
        }
    }
}
