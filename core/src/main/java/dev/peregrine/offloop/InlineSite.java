package dev.peregrine.offloop;

import dev.peregrine.loop.Connection;

/**
 * The connection an inline handler is running for, as {@link OffLoop} sees it: where an interim
 * response goes, and the {@link OffLoopHost} an {@code async()} hands the request to (made on first
 * use, so a connection that never leaves the loop never pays for one).
 *
 * <p>Thread: the loop thread.
 */
public interface InlineSite {
    Connection connection();

    /**
     * Where an inline handler's interim (1xx) response is encoded: the connection's batch (HTTP/1.1),
     * or, for a protocol whose messages are framed whole (teleport), a buffer of its own that the final
     * response's payload then begins with.
     */
    default dev.peregrine.buffer.OutputSink interimOut() {
        return connection();
    }

    /** This connection's off-loop host, made now if it has none yet. */
    OffLoopHost offLoopHost();

    /**
     * An interim response of the running handler, over a protocol that frames it itself (HTTP/2: a
     * HEADERS frame of the handler's stream). HTTP/1.1 connections never get this call: the loop's
     * encoder writes their interim responses.
     */
    default void interim(int status, String[] headers) {
    }
}
