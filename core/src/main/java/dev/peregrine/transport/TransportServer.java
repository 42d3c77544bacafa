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
     * Stops accepting and starts closing connections gracefully on every loop; returns at once.
     * Thread: any.
     */
    void beginStop(long graceMillis);

    /**
     * Returns once every loop has closed its connections and ended (at the latest some time after the
     * grace that {@link #beginStop} started), with its pooled memory freed. Thread: any but a loop thread.
     */
    void awaitTermination(long graceMillis);

    /**
     * Stops accepting, lets each connection finish the response being written for at most
     * {@code graceMillis}, closes the rest, stops the loops and frees their pooled memory. Returns when
     * every loop thread has ended. Several servers stopping together under one grace call
     * {@link #beginStop} on all of them first. Thread: any but a loop thread.
     */
    default void close(long graceMillis) {
        beginStop(graceMillis);
        awaitTermination(graceMillis);
    }
}
