package dev.peregrine.loop;

/**
 * A node that can sit in one loop's {@link FineTimers}: a deadline kept to the nanosecond, for the few
 * delays shorter than the {@link TimerWheel}'s 10 ms tick would honour (a teleport batch's
 * {@code maxBatchDelay} of 1 to 9 ms). Embed one per object that needs such a deadline, so that arming
 * it allocates nothing.
 *
 * <p>Thread: the owning loop thread.
 */
public abstract class FineTimeout {
    /** {@link System#nanoTime()} at which it is due. */
    long deadlineNanos;
    /** Its place in the heap, -1 when not armed. */
    int index = -1;

    /** Whether this node is armed. */
    public final boolean scheduled() {
        return index >= 0;
    }

    /** Called on the loop thread once the deadline has passed; the node is no longer armed. */
    protected abstract void onTimeout();
}
