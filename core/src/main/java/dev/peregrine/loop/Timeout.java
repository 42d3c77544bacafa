package dev.peregrine.loop;

/**
 * A node that can sit in one loop's {@link TimerWheel}. Embed one per object that needs a deadline
 * (a connection has one: it is only ever waiting for one thing at a time), so that arming a timeout
 * allocates nothing.
 *
 * <p>Thread: the owning loop thread.
 */
public abstract class Timeout {
    long deadlineTick;
    Timeout prev;
    Timeout next;
    int slot = -1;

    /** Whether this node is armed. */
    public final boolean scheduled() {
        return slot >= 0;
    }

    /** Called on the loop thread when the deadline has passed; the node is no longer armed. */
    protected abstract void onTimeout();
}
