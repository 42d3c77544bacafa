package dev.peregrine.transport.epoll;

import dev.peregrine.transport.NativeIo;
import dev.peregrine.transport.NettyLoop;
import dev.peregrine.transport.NettySockets;
import dev.peregrine.transport.Readiness;
import io.netty.channel.IoEvent;
import io.netty.channel.IoRegistration;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.NativeInetAddress;
import io.netty.channel.unix.Socket;

import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The one place that speaks Netty: everything else in this package sees plain Java types. Netty
 * ({@code netty-transport-native-epoll}, pinned in the parent pom) is used only as an epoll library
 * through its public {@code IoHandle} API — no channels, no pipeline, no codecs, and reflection for one
 * method only (sendfile, below):
 * <ul>
 *   <li>{@link #loop}: one {@link NettyLoop} thread running an {@link EpollIoHandler} (epoll_wait plus
 *       Netty's MPSC task queue, eventfd wake-up and timerfd for scheduled tasks);</li>
 *   <li>{@link Fd}: one non-blocking socket ({@link LinuxSocket} / {@link Socket}) registered on a loop
 *       as an {@link EpollIoHandle}, armed edge-triggered; bytes move with {@code readAddress} /
 *       {@code writeAddress} straight into and out of our direct buffers.</li>
 * </ul>
 * {@code Socket} and {@code LinuxSocket} are marked unstable by Netty: a Netty upgrade is checked
 * against this file, {@code NettyIoUring} and the shared {@link NettyLoop} and {@link NettySockets}.
 *
 * <p><b>sendfile.</b> Through {@link FileSender} (a {@code MethodHandle} on Netty's package-private
 * {@code LinuxSocket.sendFile}), which explains when it cannot be had.
 *
 * <p>Nothing outside this file (and the shared {@link NettyLoop} and {@link NettySockets}) may name a
 * Netty type, so that the classes of this package load (and
 * {@link EpollAvailability} answers) when Netty is not on the class path at all.
 */
final class NettyEpoll {
    /** Bytes of the address record {@code accept} fills (length byte, address, scope id, port). */
    static final int ACCEPT_ADDRESS_BYTES = 25;

    private NettyEpoll() {
    }

    /**
     * Whether epoll can be used here: {@code null} when it can, else a one-line reason (the native
     * library's load failure). Loads Netty's {@code Epoll} class, which loads the native library once.
     */
    static String unavailabilityReason() {
        if (Epoll.isAvailable()) {
            return null;
        }
        return NettySockets.reason(Epoll.unavailabilityCause());
    }

    /** A loop thread running Netty's {@link EpollIoHandler}. */
    static NettyLoop loop(String threadName) {
        Epoll.ensureAvailability();
        return new NettyLoop(threadName, EpollIoHandler.newFactory(), true); // epoll_wait, then its ready events
    }

    /**
     * One non-blocking TCP socket, listening or connected, and its registration on a {@link NettyLoop}.
     * Armed with {@code EPOLLIN | EPOLLRDHUP | EPOLLET}, plus {@code EPOLLOUT} while
     * {@link #writeInterest} is on: edge-triggered, so every readiness is reported once and the owner
     * must read (or accept) until the kernel says there is no more, or remember to come back.
     *
     * <p>Thread: the loop it is registered on ({@link #listen} and {@link #register} may run on the
     * starting thread before the loop serves it).
     */
    static final class Fd implements EpollIoHandle, NativeIo.Listener {
        private static final int IN = EpollIoOps.EPOLLIN.value();
        private static final int OUT = EpollIoOps.EPOLLOUT.value();
        private static final int ERR = EpollIoOps.EPOLLERR.value();
        private static final EpollIoOps READ_OPS = EpollIoOps.EPOLLIN.with(EpollIoOps.EPOLLRDHUP).with(EpollIoOps.EPOLLET);
        private static final EpollIoOps READ_WRITE_OPS = READ_OPS.with(EpollIoOps.EPOLLOUT);

        private final Socket socket;
        private NettyLoop loop;
        private IoRegistration registration;
        private Readiness owner;
        private boolean writeArmed;
        private boolean closed;
        private boolean connectedAtOnce;
        /** sendfile on this socket, made at the first file sent. */
        private FileSender files;

        private Fd(Socket socket) {
            this.socket = socket;
        }

        /**
         * A listening socket bound to {@code address} ({@code SO_REUSEADDR}; {@code SO_REUSEPORT} when
         * asked, so that every loop can bind its own and the kernel spreads connections).
         */
        static Fd listen(InetSocketAddress address, int backlog, boolean reusePort) throws IOException {
            LinuxSocket s = LinuxSocket.newSocketStream(address.getAddress() instanceof Inet6Address);
            NettySockets.listen(s, address, backlog, reusePort);
            return new Fd(s);
        }

        /** Takes over a descriptor returned by {@link #accept}, with {@code TCP_NODELAY} on. */
        static Fd connected(int fd) throws IOException {
            Socket s = LinuxSocket.newSocket(fd);
            NettySockets.noDelay(s);
            return new Fd(s);
        }

        /**
         * A new socket (TCP_NODELAY) with a non-blocking connect to {@code address} started; when
         * {@link #connectedAtOnce} is false, the connect ends with writability, then {@link #finishConnect}.
         */
        static Fd connecting(InetSocketAddress address) throws IOException {
            LinuxSocket s = LinuxSocket.newSocketStream(address.getAddress() instanceof Inet6Address);
            Fd fd = new Fd(s);
            fd.connectedAtOnce = NettySockets.connect(s, address);
            return fd;
        }

        /** Whether {@link #connecting}'s connect completed at once (loopback may). */
        boolean connectedAtOnce() {
            return connectedAtOnce;
        }

        /** Ends a connect that reported writability: true when connected; throws when it failed. */
        boolean finishConnect() throws IOException {
            return socket.finishConnect();
        }

        /** From now on events go to {@code owner} (a connected socket passing to its endpoint). */
        void owner(Readiness owner) {
            this.owner = owner;
        }

        /** Decodes the peer address {@link #accept} wrote into {@code record}. */
        static InetSocketAddress acceptedAddress(byte[] record) {
            return NativeInetAddress.address(record, 1, record[0]);
        }

        @Override
        public int localPort() {
            return socket.localAddress().getPort();
        }

        /**
         * Registers this socket on {@code loop} and arms it; events go to {@code owner}. On the loop
         * thread the registration is immediate; from another thread this waits for it.
         */
        void register(NettyLoop loop, Readiness owner) throws IOException {
            this.loop = loop;
            this.owner = owner;
            registration = loop.register(this);
            registration.submit(READ_OPS);
        }

        /**
         * Accepts one pending connection: returns its descriptor (non-blocking, close-on-exec) and
         * fills {@code record} (of {@link #ACCEPT_ADDRESS_BYTES}) with the peer address, or returns -1
         * when none is pending.
         */
        int accept(byte[] record) throws IOException {
            return socket.accept(record);
        }

        /** Reads into {@code dst} from its position to its limit; returns bytes read, 0 if none, -1 at EOF. */
        int read(ByteBuffer dst) throws IOException {
            return loop.read(socket, dst);
        }

        /** Writes {@code src} from its position to its limit as far as the socket takes it; returns bytes written. */
        int write(ByteBuffer src) throws IOException {
            return loop.write(socket, src);
        }

        /**
         * Sends up to {@code count} bytes of {@code file} from {@code position} with {@code sendfile(2)};
         * returns the bytes sent (0 when the socket takes none now), or -1 when this cannot be done here
         * ({@link FileSender#unavailable()}, or {@code file} not a channel of the JDK's own class).
         */
        long sendFile(FileChannel file, long position, long count) throws IOException {
            if (files == null) {
                if (!(socket instanceof LinuxSocket)) {
                    return -1;
                }
                files = new FileSender((LinuxSocket) socket);
            }
            return files.send(file, position, count);
        }

        /** Adds or removes {@code EPOLLOUT} (one {@code epoll_ctl} when it changes). */
        void writeInterest(boolean on) {
            if (on != writeArmed && !closed && registration != null) {
                writeArmed = on;
                registration.submit(on ? READ_WRITE_OPS : READ_OPS);
            }
        }

        /** Sends FIN after the bytes already written. */
        void shutdownOutput() {
            try {
                socket.shutdown(false, true);
            } catch (IOException | java.nio.channels.NotYetConnectedException e) {
                // the peer is gone (ENOTCONN comes as NotYetConnectedException, as on io_uring); the close that follows cleans up
            }
        }

        /** Removes the registration, then closes the descriptor. Idempotent. */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            files = null;
            if (registration != null) {
                // Before close(2): the loop forgets this fd number before the kernel can hand it out again.
                registration.cancel();
            }
            NettySockets.closeQuietly(socket);
        }

        @Override
        public FileDescriptor fd() {
            return socket;
        }

        @Override
        public void handle(IoRegistration registration, IoEvent event) {
            int ops = ((EpollIoEvent) event).ops().value();
            // Anything but plain writability (EPOLLIN, EPOLLRDHUP, EPOLLHUP, EPOLLERR) is worth a read:
            // it yields bytes, end of stream or the error. An error also ends a pending write.
            owner.ready((ops & ~OUT) != 0, (ops & (OUT | ERR)) != 0, (ops & ~(IN | OUT)) != 0);
        }
    }
}
