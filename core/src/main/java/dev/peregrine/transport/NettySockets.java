package dev.peregrine.transport;

import io.netty.channel.unix.FileDescriptor;
import io.netty.channel.unix.Socket;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;

/**
 * Socket set-up on Netty's {@link Socket} (from {@code netty-transport-native-unix-common}),
 * the same for both native transports: each makes its own kind of socket (epoll's {@code LinuxSocket},
 * which can {@code sendfile}; io_uring's plain one) and hands it here. Names Netty types: loaded only
 * by the native transports' Netty classes.
 *
 * <p>Thread: the socket's loop (or the starting thread for listeners).
 */
public final class NettySockets {
    private NettySockets() {
    }

    /** Binds {@code s} to {@code address} and listens ({@code SO_REUSEADDR}; {@code SO_REUSEPORT} when asked); closes it on failure. */
    public static void listen(Socket s, InetSocketAddress address, int backlog, boolean reusePort) throws IOException {
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
        } catch (IOException | RuntimeException e) {
            closeQuietly(s);
            throw e;
        }
    }

    /** Turns {@code TCP_NODELAY} on for a connected socket; closes it on failure. */
    public static void noDelay(Socket s) throws IOException {
        try {
            s.setTcpNoDelay(true);
        } catch (IOException | RuntimeException e) {
            closeQuietly(s);
            throw e;
        }
    }

    /** {@code TCP_NODELAY}, then a non-blocking connect to {@code address}; true when it connected at once. Closes it on failure. */
    public static boolean connect(Socket s, InetSocketAddress address) throws IOException {
        try {
            s.setTcpNoDelay(true);
            return s.connect(address);
        } catch (IOException | RuntimeException e) {
            closeQuietly(s);
            throw e;
        }
    }

    /** Closes {@code fd}, ignoring a failure (the descriptor is released either way). */
    public static void closeQuietly(FileDescriptor fd) {
        try {
            fd.close();
        } catch (IOException e) {
            // the descriptor is released either way
        }
    }

    /** Closes a descriptor number that an accept returned but nobody took over. */
    public static void closeAccepted(int fd) {
        closeQuietly(new FileDescriptor(fd));
    }

    /** Netty's reason a native transport is unavailable, as one message (the first cause that has one). */
    public static String reason(Throwable cause) {
        while (cause.getCause() != null && cause.getMessage() == null) {
            cause = cause.getCause();
        }
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}
