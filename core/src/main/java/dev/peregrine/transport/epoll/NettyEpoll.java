package dev.peregrine.transport.epoll;

import io.netty.channel.DefaultFileRegion;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoEvent;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollIoOps;
import io.netty.channel.epoll.LinuxSocket;
import io.netty.channel.unix.Buffer;
import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.NativeInetAddress;
import io.netty.channel.unix.Socket;
import io.netty.util.concurrent.FastThreadLocalThread;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The one place that speaks Netty: everything else in this package sees plain Java types. Netty
 * ({@code netty-transport-native-epoll}, pinned in the parent pom) is used only as an epoll library
 * through its public {@code IoHandle} API — no channels, no pipeline, no codecs, and reflection for one
 * method only (sendfile, below):
 * <ul>
 *   <li>{@link Loop}: one thread running an {@link EpollIoHandler} (epoll_wait plus Netty's MPSC task
 *       queue, eventfd wake-up and timerfd for scheduled tasks), built as a
 *       {@link MultiThreadIoEventLoopGroup} of one thread;</li>
 *   <li>{@link Fd}: one non-blocking socket ({@link LinuxSocket} / {@link Socket}) registered on a loop
 *       as an {@link EpollIoHandle}, armed edge-triggered; bytes move with {@code readAddress} /
 *       {@code writeAddress} straight into and out of our direct buffers.</li>
 * </ul>
 * {@code Socket} and {@code LinuxSocket} are marked unstable by Netty: a Netty upgrade is checked
 * against this file alone.
 *
 * <p><b>sendfile.</b> Netty 4.2.18 has {@code sendfile(2)} only as
 * {@code LinuxSocket.sendFile(DefaultFileRegion, ...)}, which is package-private (its channels call it), and no public call takes a file descriptor
 * number a JDK {@link FileChannel} would give (it gives none). So {@link Fd#sendFile} reaches that one
 * method through a {@link MethodHandle} found once ({@code privateLookupIn}: allowed on the class path,
 * where Netty's packages are open to us; on the module path only with
 * {@code --add-opens io.netty.transport.classes.epoll/io.netty.channel.epoll=dev.peregrine}). Where the
 * lookup fails, {@link SendFile#UNAVAILABLE} says why and files go through the loop's buffers as on
 * TLS. Netty's native code reads the descriptor out of the JDK's own {@code FileChannel} class, so only
 * channels of exactly that class are handed to it.
 *
 * <p>Nothing outside this file may name a Netty type, so that the classes of this package load (and
 * {@link EpollTransport#unavailabilityReason()} answers) when Netty is not on the class path at all.
 */
final class NettyEpoll {
    /** Bytes of the address record {@code accept} fills (length byte, address, scope id, port). */
    static final int ACCEPT_ADDRESS_BYTES = 25;

    private NettyEpoll() {
    }

    /**
     * The {@code sendfile(2)} call, found at first use (a holder, so that this file's other classes load
     * without it). Thread: any; immutable.
     */
    static final class SendFile {
        /** {@code LinuxSocket.sendFile(DefaultFileRegion, long base, long offset, long length)}, or null. */
        static final MethodHandle HANDLE;
        /** Why {@link #HANDLE} is null (files are then copied through buffers), or null when it is there. */
        static final String UNAVAILABLE;
        /** The class of the channels {@link FileChannel#open} returns: the only one Netty's native code can read. */
        static final Class<?> JDK_FILE_CHANNEL;

        static {
            MethodHandle h = null;
            String why = null;
            Class<?> jdk = null;
            try {
                jdk = Class.forName("sun.nio.ch.FileChannelImpl", false, FileChannel.class.getClassLoader());
                h = MethodHandles.privateLookupIn(LinuxSocket.class, MethodHandles.lookup()).findVirtual(LinuxSocket.class,
                        "sendFile", MethodType.methodType(long.class, DefaultFileRegion.class, long.class, long.class, long.class));
            } catch (ReflectiveOperationException | RuntimeException e) {
                h = null;
                why = e.toString();
            }
            HANDLE = h;
            UNAVAILABLE = why;
            if (why != null) {
                System.getLogger("dev.peregrine").log(System.Logger.Level.INFO,
                        "epoll: no sendfile (" + why + "); files are sent through the loop's buffers");
            }
            JDK_FILE_CHANNEL = jdk;
        }

        private SendFile() {
        }
    }

    /**
     * Whether epoll can be used here: {@code null} when it can, else a one-line reason (the native
     * library's load failure). Loads Netty's {@code Epoll} class, which loads the native library once.
     */
    static String unavailabilityReason() {
        if (Epoll.isAvailable()) {
            return null;
        }
        Throwable cause = Epoll.unavailabilityCause();
        while (cause.getCause() != null && cause.getMessage() == null) {
            cause = cause.getCause();
        }
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    /** What a registered {@link Fd} reports. Called on the loop thread. */
    interface Readiness {
        /**
         * The socket changed state.
         *
         * @param in bytes, end of stream or an error can be read
         * @param out the socket can take more bytes
         * @param hangup the peer closed (or the socket failed): read until end of stream, not until a short read
         */
        void ready(boolean in, boolean out, boolean hangup);
    }

    /**
     * One event loop thread: epoll, a task queue for other threads and scheduled tasks. Owns a small
     * cache of direct buffers' native addresses for the sockets of this loop.
     *
     * <p>Thread: {@link #execute}, {@link #inEventLoop}, {@link #shutdown} from any thread; the rest on
     * the loop thread.
     */
    static final class Loop {
        private final MultiThreadIoEventLoopGroup group;
        private final IoEventLoop loop;
        /** Buffers whose native address is known: the loop's shared buffers and recently lent ones. */
        private final ByteBuffer[] cachedBuffers = new ByteBuffer[4];
        private final long[] cachedAddresses = new long[4];
        private int nextCacheSlot;

        Loop(String threadName) {
            Epoll.ensureAvailability();
            ThreadFactory threads = r -> new FastThreadLocalThread(r, threadName);
            this.group = new MultiThreadIoEventLoopGroup(1, threads, EpollIoHandler.newFactory());
            this.loop = (IoEventLoop) group.next();
        }

        /** Runs {@code task} on the loop thread soon; false (task dropped) once the loop is shutting down. */
        boolean execute(Runnable task) {
            try {
                loop.execute(task);
                return true;
            } catch (RejectedExecutionException e) {
                return false;
            }
        }

        boolean inEventLoop() {
            return loop.inEventLoop();
        }

        /** Runs {@code task} on the loop every {@code periodMillis}, first after one period. */
        void every(long periodMillis, Runnable task) {
            loop.scheduleAtFixedRate(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        }

        /**
         * Stops the loop thread and waits until it ended (at most {@code timeoutMillis} for the shutdown
         * itself). Sockets still registered are closed by Netty. Thread: any but this loop's.
         */
        void shutdown(long timeoutMillis) {
            group.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS);
            group.terminationFuture().awaitUninterruptibly();
        }

        /** The native address of direct buffer {@code b}, cached for the last few buffers asked about. */
        long address(ByteBuffer b) {
            ByteBuffer[] bufs = cachedBuffers;
            for (int i = 0; i < bufs.length; i++) {
                if (bufs[i] == b) {
                    return cachedAddresses[i];
                }
            }
            long a = Buffer.memoryAddress(b);
            int slot = nextCacheSlot;
            nextCacheSlot = (slot + 1) & (bufs.length - 1);
            bufs[slot] = b;
            cachedAddresses[slot] = a;
            return a;
        }

        /** Forgets cached buffers so that their memory can be reclaimed. Thread: the loop, or after it ended. */
        void forgetBuffers() {
            java.util.Arrays.fill(cachedBuffers, null);
        }
    }

    /**
     * One non-blocking TCP socket, listening or connected, and its registration on a {@link Loop}.
     * Armed with {@code EPOLLIN | EPOLLRDHUP | EPOLLET}, plus {@code EPOLLOUT} while
     * {@link #writeInterest} is on: edge-triggered, so every readiness is reported once and the owner
     * must read (or accept) until the kernel says there is no more, or remember to come back.
     *
     * <p>Thread: the loop it is registered on ({@link #listen} and {@link #register} may run on the
     * starting thread before the loop serves it).
     */
    static final class Fd implements EpollIoHandle {
        private static final int IN = EpollIoOps.EPOLLIN.value();
        private static final int OUT = EpollIoOps.EPOLLOUT.value();
        private static final int ERR = EpollIoOps.EPOLLERR.value();
        private static final EpollIoOps READ_OPS = EpollIoOps.EPOLLIN.with(EpollIoOps.EPOLLRDHUP).with(EpollIoOps.EPOLLET);
        private static final EpollIoOps READ_WRITE_OPS = READ_OPS.with(EpollIoOps.EPOLLOUT);

        private final Socket socket;
        private Loop loop;
        private IoRegistration registration;
        private Readiness owner;
        private boolean writeArmed;
        private boolean closed;
        private boolean connectedAtOnce;
        /** The file of the last {@link #sendFile} and the region wrapping it (one per file sent, not per call). */
        private FileChannel regionFile;
        private DefaultFileRegion region;

        private Fd(Socket socket) {
            this.socket = socket;
        }

        /**
         * A listening socket bound to {@code address} ({@code SO_REUSEADDR}; {@code SO_REUSEPORT} when
         * asked, so that every loop can bind its own and the kernel spreads connections).
         */
        static Fd listen(InetSocketAddress address, int backlog, boolean reusePort) throws IOException {
            LinuxSocket s = LinuxSocket.newSocketStream(address.getAddress() instanceof Inet6Address);
            try {
                s.setReuseAddress(true);
                if (reusePort) {
                    s.setReusePort(true);
                }
                try {
                    s.bind(address);
                } catch (IOException e) {
                    BindException be = new BindException(e.getMessage());
                    be.initCause(e);
                    throw be;
                }
                s.listen(backlog);
                return new Fd(s);
            } catch (IOException | RuntimeException e) {
                closeQuietly(s);
                throw e;
            }
        }

        /** Takes over a descriptor returned by {@link #accept}, with {@code TCP_NODELAY} on. */
        static Fd connected(int fd) throws IOException {
            Socket s = LinuxSocket.newSocket(fd);
            try {
                s.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(s);
                throw e;
            }
            return new Fd(s);
        }

        /**
         * A new socket (TCP_NODELAY) with a non-blocking connect to {@code address} started; when
         * {@link #connectedAtOnce} is false, the connect ends with writability, then {@link #finishConnect}.
         */
        static Fd connecting(InetSocketAddress address) throws IOException {
            LinuxSocket s = LinuxSocket.newSocketStream(address.getAddress() instanceof Inet6Address);
            try {
                s.setTcpNoDelay(true);
                Fd fd = new Fd(s);
                fd.connectedAtOnce = s.connect(address);
                return fd;
            } catch (IOException | RuntimeException e) {
                closeQuietly(s);
                throw e;
            }
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

        /** Closes a descriptor that {@link #accept} returned but nobody took over. */
        static void closeAccepted(int fd) {
            closeQuietly(new FileDescriptor(fd));
        }

        /** Decodes the peer address {@link #accept} wrote into {@code record}. */
        static InetSocketAddress acceptedAddress(byte[] record) {
            return NativeInetAddress.address(record, 1, record[0]);
        }

        /** The bound port. */
        int localPort() {
            return socket.localAddress().getPort();
        }

        /**
         * Registers this socket on {@code loop} and arms it; events go to {@code owner}. On the loop
         * thread the registration is immediate; from another thread this waits for it.
         */
        void register(Loop loop, Readiness owner) throws IOException {
            this.loop = loop;
            this.owner = owner;
            io.netty.util.concurrent.Future<IoRegistration> f = loop.loop.register(this);
            if (!f.isDone()) {
                f.awaitUninterruptibly();
            }
            if (!f.isSuccess()) {
                throw new IOException("cannot register with epoll: " + f.cause(), f.cause());
            }
            registration = f.getNow();
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
            int pos = dst.position();
            int n = socket.readAddress(loop.address(dst), pos, dst.limit());
            if (n > 0) {
                dst.position(pos + n);
            }
            return n;
        }

        /** Writes {@code src} from its position to its limit as far as the socket takes it; returns bytes written. */
        int write(ByteBuffer src) throws IOException {
            int pos = src.position();
            int n = socket.writeAddress(loop.address(src), pos, src.limit());
            if (n > 0) {
                src.position(pos + n);
            }
            return n;
        }

        /**
         * Sends up to {@code count} bytes of {@code file} from {@code position} with {@code sendfile(2)};
         * returns the bytes sent (0 when the socket takes none now), or -1 when this cannot be done here
         * ({@link SendFile#UNAVAILABLE}, or {@code file} not a channel of the JDK's own class).
         */
        long sendFile(FileChannel file, long position, long count) throws IOException {
            if (SendFile.HANDLE == null || file.getClass() != SendFile.JDK_FILE_CHANNEL || !(socket instanceof LinuxSocket)) {
                return -1;
            }
            DefaultFileRegion r = region;
            if (regionFile != file) {
                // Netty reads the channel out of the region; position and count are given per call.
                r = region = new DefaultFileRegion(file, 0, 0);
                regionFile = file;
            }
            try {
                return (long) SendFile.HANDLE.invokeExact((LinuxSocket) socket, r, 0L, position, count);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IOException(t);
            }
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
            regionFile = null;
            region = null;
            if (registration != null) {
                // Before close(2): the loop forgets this fd number before the kernel can hand it out again.
                registration.cancel();
            }
            closeQuietly(socket);
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

        private static void closeQuietly(FileDescriptor fd) {
            try {
                fd.close();
            } catch (IOException e) {
                // the descriptor is released either way
            }
        }
    }
}
