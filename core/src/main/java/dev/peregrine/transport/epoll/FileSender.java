package dev.peregrine.transport.epoll;

import dev.peregrine.loop.SocketEndpoint;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.LinuxSocket;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.channels.FileChannel;

/**
 * {@code sendfile(2)} from a file to one connected socket's descriptor, through Netty epoll's
 * {@code LinuxSocket}: the epoll transport's sockets are such sockets already; the io_uring transport,
 * whose ring has no {@code sendfile} and whose splice needs the file's descriptor number (which the JDK
 * does not give), wraps its socket's descriptor number in one ({@link #forDescriptor}) and calls the same.
 *
 * <p>Netty 4.2.18 has {@code sendfile(2)} only as {@code LinuxSocket.sendFile(DefaultFileRegion, ...)},
 * which is package-private (its channels call it), and no public call takes a file descriptor number a
 * JDK {@link FileChannel} would give. So this reaches that one method through a {@link MethodHandle}
 * found once ({@code privateLookupIn}: allowed on the class path, where Netty's packages are open to us;
 * on the module path only with
 * {@code --add-opens io.netty.transport.classes.epoll/io.netty.channel.epoll=dev.peregrine}). Where the
 * lookup fails, {@link #unavailable()} says why (one INFO line, once) and files go through the loop's
 * buffers as on TLS. Netty's native code reads the descriptor out of the JDK's own {@code FileChannel}
 * class, so only channels of exactly that class are handed to it.
 *
 * <p>Names Netty's epoll types: loaded only by a native transport, after epoll's availability was asked.
 *
 * <p>Thread: the socket's loop.
 */
public final class FileSender {
    private final LinuxSocket socket;
    /** The file of the last {@link #send} and the region wrapping it (one per file sent, not per call). */
    private FileChannel regionFile;
    private DefaultFileRegion region;

    FileSender(LinuxSocket socket) {
        this.socket = socket;
    }

    /**
     * A sender on descriptor {@code fd}, a connected non-blocking socket another transport owns (this
     * never closes it; drop the sender before the descriptor closes), or null when sendfile cannot be had
     * here ({@link #unavailable()}).
     */
    public static FileSender forDescriptor(int fd) {
        if (unavailable() != null) {
            return null;
        }
        return new FileSender(LinuxSocket.newSocket(fd));
    }

    /** Why sendfile cannot be used here (files are then copied through buffers), or null. */
    public static String unavailable() {
        return Handle.UNAVAILABLE;
    }

    /**
     * Sends up to {@code count} bytes of {@code file} from {@code position} (from the file's own
     * descriptor: a shared cached file's, for a {@link SocketEndpoint.FileView}); returns the bytes sent
     * (0 when the socket takes none now: non-blocking, {@code EAGAIN}), or -1 when this cannot be done
     * here ({@link #unavailable()}, or the file not a channel of the JDK's own class).
     */
    public long send(FileChannel channel, long position, long count) throws IOException {
        FileChannel file = channel instanceof SocketEndpoint.FileView v ? v.source() : channel;
        if (Handle.HANDLE == null || socket == null || file.getClass() != Handle.JDK_FILE_CHANNEL) {
            return -1;
        }
        DefaultFileRegion r = region;
        if (regionFile != file) {
            // Netty reads the channel out of the region; position and count are given per call.
            r = region = new DefaultFileRegion(file, 0, 0);
            regionFile = file;
        }
        try {
            return (long) Handle.HANDLE.invokeExact(socket, r, 0L, position, count);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    /** Drops the file last sent (the socket closes). */
    public void forget() {
        regionFile = null;
        region = null;
    }

    /**
     * The {@code sendfile(2)} call, found at first use (a holder, so that the transport's other classes
     * load without it). Thread: any; immutable.
     */
    private static final class Handle {
        /** {@code LinuxSocket.sendFile(DefaultFileRegion, long base, long offset, long length)}, or null. */
        static final MethodHandle HANDLE;
        /** Why {@link #HANDLE} is null, or null when it is there. */
        static final String UNAVAILABLE;
        /** The class of the channels {@link FileChannel#open} returns: the only one Netty's native code can read. */
        static final Class<?> JDK_FILE_CHANNEL;

        static {
            MethodHandle h = null;
            String why = null;
            Class<?> jdk = null;
            try {
                Epoll.ensureAvailability(); // the native library that carries sendfile
                jdk = Class.forName("sun.nio.ch.FileChannelImpl", false, FileChannel.class.getClassLoader());
                h = MethodHandles.privateLookupIn(LinuxSocket.class, MethodHandles.lookup()).findVirtual(LinuxSocket.class,
                        "sendFile", MethodType.methodType(long.class, DefaultFileRegion.class, long.class, long.class, long.class));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                h = null;
                why = e.toString();
            }
            HANDLE = h;
            UNAVAILABLE = why;
            if (why != null) {
                System.getLogger("dev.peregrine").log(System.Logger.Level.INFO,
                        "no sendfile (" + why + "); files are sent through the loop's buffers");
            }
            JDK_FILE_CHANNEL = jdk;
        }

        private Handle() {
        }
    }
}
