package dev.peregrine.transport;

import dev.peregrine.loop.LoopContext;

import java.util.List;

/** Loops of one transport, running. */
public interface TransportServer {
    /** The bound port. */
    int port();

    /** Each loop's context, for metrics. */
    List<LoopContext> loops();

    /**
     * Stops accepting, lets each connection finish the response being written for at most
     * {@code graceMillis}, closes the rest, stops the loops and frees their pooled memory. Returns when
     * every loop thread has ended. Thread: any but a loop thread.
     */
    void close(long graceMillis);
}
