package dev.peregrine.loop;

import java.io.IOException;

/**
 * The outcome of {@link EventLoop#connect}: exactly one of the two methods is called, once, on the
 * loop thread that was asked to connect.
 */
public interface ConnectCallback {
    /** The socket is connected and {@code connection} (already speaking its protocol) lives on the loop. */
    void connected(Connection connection);

    /** The connection could not be made: refused, unreachable, timed out, or the loop is stopping. */
    void failed(IOException cause);
}
