package dev.peregrine.loop;

/** One event loop thread, as seen from outside it. */
public interface EventLoop {
    /** Runs {@code task} on the loop thread, soon. Thread: any. Tasks offered after shutdown are dropped. */
    void execute(Runnable task);

    /** Whether the caller is this loop's thread. Thread: any. */
    boolean inEventLoop();
}
