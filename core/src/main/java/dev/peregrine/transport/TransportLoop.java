package dev.peregrine.transport;

import dev.peregrine.loop.LoopContext;

/** What a {@link LoopGroup} needs of one transport's loop to report on it and stop it. */
public interface TransportLoop {
    /** The loop's resources (metrics, pool). */
    LoopContext context();

    /** Stops accepting and starts closing connections gracefully. Thread: any. */
    void beginStop(long graceMillis);

    /**
     * Returns once the loop has closed its connections and ended (or, at the latest, some time after
     * the grace has passed), with its pooled memory freed. Thread: any but the loop's own.
     */
    void awaitTermination(long graceMillis);
}
