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

    /** This connection's off-loop host, made now if it has none yet. */
    OffLoopHost offLoopHost();
}
