package dev.peregrine.transport.iouring;

import dev.peregrine.transport.NettyLoop;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.uring.IoUringIoEvent;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.uring.IoUringIoOps;

import java.io.IOException;
import java.util.Arrays;

/**
 * One loop's sockets as Netty's io_uring loop sees them: registered by the {@link #GROUP}, not one by
 * one. Each socket ({@link NettyIoUring.Fd}) takes an index here; every {@link #GROUP} indexes share
 * one Netty registration (a {@link Group}, an {@code IoUringIoHandle}), and an entry's 16-bit
 * {@code data} names the socket inside it. So a connection costs Netty nothing of its own: a
 * registration of its own would be four objects (the registration, its event, its {@code AtomicBoolean},
 * the loop's wrapper: 128 bytes) and an entry in the loop's map of registrations.
 * <pre>
 *   index:     group = index &gt;&gt;&gt; 15, slot in the group = index &amp; 0x7fff
 *   data:      bits 15..1 the slot in the group | bit 0: 1 for the write poll (its opcode is the read poll's)
 *   user data: Netty 4.2.18's (UserData.encode): registration id &lt;&lt; 32 | opcode &lt;&lt; 16 | data;
 *              an entry's kind comes back as its opcode, its socket as its data
 * </pre>
 * A cancel names the user data of the entry it cancels: {@link #userData} computes it from the group's
 * registration id, learned from what the group's first submit returned and checked at every submit (a
 * Netty that encodes it otherwise fails loudly at the first submit, never cancels the wrong entry).
 * An index is given back only when its socket is closed and no completion of it is due, so it never
 * reaches another socket. The loop's send slots ({@link NettyIoUring.Slots}, for sends as
 * {@code SENDMSG}) and its {@link DirectSend} (sends as {@code SEND}) live here too: a group learns
 * Netty's own registration from its first completion, and from then on its sockets' sends are written
 * straight into the submission queue ({@link #send}).
 *
 * <p>Thread: the loop; a listener's registration may run on the starting thread before the loop serves it.
 */
final class RingSockets {
    /** Sockets per registration: the data's 15 bits. */
    static final int GROUP = 1 << 15;

    /** Sockets per registration here: {@link #GROUP}, fewer in tests (a power of two). */
    private final int group;
    private final NettyLoop loop;
    private final IoUringIo io;
    private final NettyIoUring.Slots slots = new NettyIoUring.Slots();
    private NettyIoUring.Fd[] sockets = new NettyIoUring.Fd[64];
    /** Indexes given back, reused first (a stack). */
    private int[] free = new int[16];
    private int freeCount;
    /** Indexes ever handed out: [0, used). */
    private int used;
    private Group[] groups = new Group[0];
    /** The loop's direct sends, found at the first {@link #send} after a completion; null before or without. */
    private DirectSend direct;
    private boolean directAsked;

    RingSockets(NettyLoop loop, IoUringIo io) {
        this(loop, io, GROUP);
    }

    /** Registrations of {@code group} sockets each (tests cross the groups' bounds with a few). */
    RingSockets(NettyLoop loop, IoUringIo io, int group) {
        if (group < 1 || group > GROUP || Integer.bitCount(group) != 1) {
            throw new IllegalArgumentException("group: a power of two up to " + GROUP + ", got " + group);
        }
        this.group = group;
        this.loop = loop;
        this.io = io;
    }

    NettyLoop loop() {
        return loop;
    }

    /** The transport's side of the loop (null for a bare loop of tests). */
    IoUringIo io() {
        return io;
    }

    NettyIoUring.Slots slots() {
        return slots;
    }

    /** The {@code data} of socket {@code index}'s entries; {@code write}: its write poll. */
    short data(int index, boolean write) {
        return (short) ((index & (group - 1)) << 1 | (write ? 1 : 0));
    }

    /** Gives {@code fd} an index, registering a new group with Netty when it is the first of one. */
    int add(NettyIoUring.Fd fd) throws IOException {
        int index = freeCount > 0 ? free[--freeCount] : used;
        int g = index / group;
        if (g == groups.length) {
            Group made = new Group(g * group);
            made.registration = loop.register(made);
            groups = Arrays.copyOf(groups, g + 1);
            groups[g] = made;
        }
        if (index == used) {
            used++;
            if (index == sockets.length) {
                sockets = Arrays.copyOf(sockets, index + (index >> 1));
            }
        }
        sockets[index] = fd;
        return index;
    }

    /** Socket {@code index} is now {@code fd} (a connected socket passed to its endpoint). */
    void replace(int index, NettyIoUring.Fd fd) {
        sockets[index] = fd;
    }

    /** Gives {@code index} back: its socket is closed and no completion of it is due. */
    void remove(int index) {
        sockets[index] = null;
        if (freeCount == free.length) {
            free = Arrays.copyOf(free, freeCount * 2);
        }
        free[freeCount++] = index;
    }

    /**
     * Submits {@code ops}, an entry of {@code opcode} built with {@link #data} of {@code index} and
     * {@code write}; returns its user data, 0 once the loop shuts down.
     */
    long submit(int index, IoUringIoOps ops, byte opcode, boolean write) {
        Group g = groups[index / group];
        long u = g.registration.submit(ops);
        if (u != 0) {
            if (g.id < 0) {
                g.id = u >>> 32;
            }
            if (u != userData(index, opcode, write)) {
                throw new IllegalStateException("io_uring: Netty's user data is not (id, opcode, data): " + Long.toHexString(u));
            }
        }
        return u;
    }

    /**
     * Queues an {@code IORING_OP_SEND} of {@code length} bytes at native {@code address} for socket
     * {@code index} (descriptor {@code fd}) with the user data of {@code opcode}: 1 when queued, 0 once
     * the loop shuts down, -1 when it cannot be sent so (no completion of the socket's group yet, or no
     * {@link DirectSend} here): the caller submits a {@code SENDMSG} through Netty instead.
     */
    int send(int index, int fd, long address, int length, int msgFlags, byte opcode) {
        Group g = groups[index / group];
        IoRegistration own = g.own;
        if (own == null || g.id < 0) {
            return -1;
        }
        DirectSend d = direct;
        if (d == null) {
            if (directAsked) {
                return -1;
            }
            directAsked = true;
            d = direct = DirectSend.of(own);
            if (d == null) {
                return -1;
            }
        }
        if (!own.isValid()) {
            return 0; // as Netty's submit: the loop is shutting down
        }
        d.send(own, fd, address, length, msgFlags, userData(index, opcode, false));
        return 1;
    }

    /** The user data of socket {@code index}'s armed entry of {@code opcode} ({@code write}: its write poll). */
    long userData(int index, byte opcode, boolean write) {
        return groups[index / group].id << 32 | (opcode & 0xffL) << 16 | (data(index, write) & 0xffffL);
    }

    /** Sockets holding an index: open, or closed with a completion still due (tests). */
    int size() {
        return used - freeCount;
    }

    /** Whether sends are {@code IORING_OP_SEND}s written by {@link DirectSend} (tests). */
    boolean sendsDirect() {
        return direct != null;
    }

    /** Netty registrations made (tests). */
    int registrations() {
        return groups.length;
    }

    /** {@link #GROUP} indexes on one Netty registration: hands each completion to the socket its data names. */
    private final class Group implements IoUringIoHandle {
        private final int base;
        private IoRegistration registration;
        /** The registration's id, as the user data carries it; -1 until the first submit. */
        private long id = -1;
        /**
         * Netty's own registration, as its completions name it (the one {@link #registration} wraps):
         * {@link DirectSend} counts its sends' completions on it. Null until the first completion.
         */
        private IoRegistration own;

        Group(int base) {
            this.base = base;
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            if (own == null) {
                own = registration;
            }
            IoUringIoEvent e = (IoUringIoEvent) event;
            int data = e.data() & 0xffff;
            NettyIoUring.Fd fd = sockets[base + (data >>> 1)];
            if (fd != null) {
                fd.completed(e.opcode(), (data & 1) != 0, e.res(), e.flags());
            }
        }

        /** The loop shuts down: closes every socket of the group (the registration ends with the loop). */
        @Override
        public void close() {
            for (int i = base, end = Math.min(used, base + group); i < end; i++) {
                NettyIoUring.Fd fd = sockets[i];
                if (fd != null) {
                    fd.closeSocket();
                }
            }
        }
    }
}
