package dev.peregrine.transport;

import dev.peregrine.loop.SocketEndpoint;

/**
 * A connection's socket on a {@link NativeEventLoop} (epoll's or io_uring's endpoint): the
 * {@link SocketEndpoint} its connection talks to and the {@link Readiness} its socket reports to, with
 * the {@link ReadPump} the loop lists it by.
 *
 * <p>Thread: the owning loop only.
 */
public interface NativeEndpoint extends SocketEndpoint, Readiness {
    /** This endpoint's pump: its connection and its place in the loop's lists. */
    ReadPump pump();

    /** The loop this endpoint's socket is on (its pump asks, so that it keeps no reference of its own). */
    NativeEventLoop owner();

    /** Reads the socket into {@code dst}, from its position to its limit: bytes read, 0 if none, -1 at end of stream. */
    int readSocket(java.nio.ByteBuffer dst) throws java.io.IOException;

    /**
     * A read showed the socket empty (short, 0): readiness-based transports wait for the next event;
     * a completion-based one arms its poll here. (Not a default method: a request would enter one more
     * class, {@code scripts/trace-get} counts them.)
     */
    void readDrained();

    /**
     * An accepted socket: registers it on the loop and arms its input. A connected outbound socket is
     * registered already; the loop calls this for accepted ones only.
     */
    void register() throws java.io.IOException;

    /**
     * The loop stops while this closed endpoint still sends its last bytes ({@link NativeEventLoop#linger}):
     * what the peer has not taken is dropped and the descriptor closed. Only transports that linger have any.
     */
    default void endLinger() {
    }
}
