package dev.peregrine.loop;

/**
 * Counters of one loop. Written by the loop thread only, with plain stores; another thread reading
 * them sees values that may lag slightly but are never torn for its purposes (a snapshot for
 * monitoring, not for synchronisation).
 */
public final class LoopMetrics {
    public long accepted;
    public long closed;
    public long requests;
    public long rejected;
    public long handlerErrors;
    public long bytesIn;
    public long bytesOut;

    /** Connections open now. */
    public long open() {
        return accepted - closed;
    }
}
