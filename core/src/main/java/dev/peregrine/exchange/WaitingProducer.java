package dev.peregrine.exchange;

import dev.peregrine.BodyProducer;

/**
 * A {@link BodyProducer} fed by another thread ({@code res.outputStream()} over HTTP/2,
 * {@code offloop.PipedOutput}): it may have nothing to give yet, so the stream pulling it asks
 * {@link #ready} first and is woken by the producer itself when bytes arrive. Where the body is
 * never sent (HEAD, 204, 304) or the stream is gone, the puller says so, so that the writer does not
 * wait for a reader that will never come.
 *
 * <p>Thread: the loop thread.
 */
public interface WaitingProducer extends BodyProducer {
    /** Whether {@link #produce} now puts a byte, ends the body or fails; false while the writer owes bytes. */
    boolean ready();

    /** The body is not sent (HEAD, 204, 304): what the writer writes from now on is dropped. */
    void discard();

    /** The stream is gone (reset, connection closed): the writer's next write throws. */
    void abort();
}
