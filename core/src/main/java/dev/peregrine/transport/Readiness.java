package dev.peregrine.transport;

/**
 * What a native socket (epoll, io_uring) reports to whoever owns it now: its endpoint, a connect under
 * way, or a loop's listener. Called on the loop thread.
 */
public interface Readiness {
    /**
     * The socket changed state (an epoll event, a poll completion).
     *
     * @param in bytes, end of stream or an error can be read (for a listener: connections wait)
     * @param out the socket can take more bytes (or failed)
     * @param hangup the peer closed (or the socket failed): read until end of stream, not until a short read
     */
    void ready(boolean in, boolean out, boolean hangup);

    /**
     * A send the transport gave the kernel to do (io_uring's {@code SEND} or {@code SENDMSG}) completed, also after the
     * socket was closed. Readiness-based transports never call it.
     *
     * @param res bytes sent, or a negative errno ({@code -ECANCELED} after a close)
     */
    default void sent(int res) {
    }

    /**
     * A multishot receive (io_uring's {@code IORING_OP_RECV} into a provided-buffer ring) completed, also
     * after the socket was closed: the buffer it names must go back to the ring. Readiness-based
     * transports never call it.
     *
     * @param res bytes received into buffer {@code bid}, 0 at end of stream, or a negative errno
     * @param bid the ring buffer holding the bytes, or -1 when the completion names none
     * @param more whether the receive stays armed (else it ended and is armed again when wanted)
     */
    default void received(int res, int bid, boolean more) {
    }
}
