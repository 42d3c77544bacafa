package dev.peregrine.transport;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * What one native loop does its own way (epoll: readiness; io_uring: ring completions): its thread,
 * accepting, and making sockets. {@link NativeEventLoop} does everything else the same way for both:
 * the hand-off of accepted descriptors, the list of connections, outbound connects, the tick and the
 * graceful stop.
 *
 * <p>Thread: {@link #thread} from any thread; {@link #start} on the starting thread; the rest on the
 * loop thread.
 */
public interface NativeIo {
    /** A loop's listening socket, as the shared code sees it. */
    interface Listener {
        /** The bound port. */
        int localPort();

        /** Closes the socket (idempotent). */
        void close();
    }

    /** Binds a listening socket ({@code SO_REUSEADDR}; {@code SO_REUSEPORT} when asked). */
    interface Listen {
        Listener listen(InetSocketAddress at, int backlog, boolean reusePort) throws IOException;
    }

    /** Makes the native side of {@code loop}, accepting on {@code listener} (null: none), its thread named {@code threadName}. */
    interface Maker {
        NativeIo open(NativeEventLoop loop, Listener listener, String threadName);
    }

    /** A socket whose non-blocking connect has started ({@link NativeEventLoop#connect}). */
    interface Dialing {
        /**
         * Registers the socket on the loop, reporting to {@code owner}. Returns true when it connected at
         * once (loopback may); otherwise its writability, armed here, will report the end of the connect.
         */
        boolean start(Readiness owner) throws IOException;

        /** After writability: true when connected, false when not yet (writability armed again); throws when it failed. */
        boolean finish() throws IOException;

        /** Connected: the socket passes to a new endpoint, counted in {@code limit}, which now hears it. */
        NativeEndpoint endpoint(InetSocketAddress remote, ConnectionLimit limit);

        /** Closes the socket (the connect failed or timed out). */
        void close();
    }

    /** The loop's thread: Netty's loop running this transport's {@code IoHandler}. */
    NettyLoop thread();

    /** Starts accepting on the listener, if there is one. Thread: the starting thread, once. */
    void start() throws IOException;

    /** The loop's tick: accepting again after a failure. */
    void tick();

    /**
     * Accepts again after a pause at {@code maxConnections} ({@link ConnectionLimit#release} ran this loop's
     * resumer, or the pause found a slot already free).
     */
    void resumeAccept();

    /** Stops accepting for good: closes the listener and what it accepted that no loop took. Idempotent. */
    void closeListener();

    /**
     * An endpoint over a descriptor accepted on this transport, counted in {@code limit}; not registered
     * yet ({@link NativeEndpoint#register}). {@code remote} null: the socket is asked.
     */
    NativeEndpoint accepted(int fd, InetSocketAddress remote, ConnectionLimit limit) throws IOException;

    /** Closes an accepted descriptor that nobody took over. */
    void closeAccepted(int fd);

    /** A new socket (TCP_NODELAY) with a non-blocking connect to {@code address} started. */
    Dialing dial(InetSocketAddress address) throws IOException;
}
