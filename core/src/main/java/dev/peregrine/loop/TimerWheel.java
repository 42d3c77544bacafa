package dev.peregrine.loop;

/**
 * A hashed timing wheel (Varghese and Lauck, "Hashed and Hierarchical Timing Wheels", 1987) for one
 * loop: {@code slots} buckets of intrusive doubly-linked {@link Timeout} nodes, one bucket per tick of
 * {@code tickMillis}. Arming, re-arming and cancelling are O(1) and allocate nothing; the loop calls
 * {@link #advance} once per cycle and sleeps no longer than {@link #millisToNextTick}.
 *
 * <pre>
 *   tick:   0    1    2  ...  511      a deadline d ticks ahead goes to slot (now + d) &amp; 511;
 *   slot:  [a]  [ ]  [b,c]    [ ]      a node further than one turn away stays put until its
 *                                      deadlineTick is reached on a later turn
 * </pre>
 * Deadlines are rounded up to the next tick, so a timeout fires between its delay and one tick later.
 *
 * <p>Thread: the owning loop thread only.
 */
public final class TimerWheel {
    private final Timeout[] heads;
    private final int mask;
    private final long tickMillis;
    private long currentTick;
    private int armed;

    /**
     * @param tickMillis resolution in milliseconds
     * @param slots number of buckets, a power of two
     * @param nowMillis the clock reading that is tick 0's start
     */
    public TimerWheel(long tickMillis, int slots, long nowMillis) {
        if (Integer.bitCount(slots) != 1) {
            throw new IllegalArgumentException("slots must be a power of two: " + slots);
        }
        this.heads = new Timeout[slots];
        this.mask = slots - 1;
        this.tickMillis = Math.max(1, tickMillis);
        this.currentTick = nowMillis / this.tickMillis;
    }

    /** Arms (or re-arms) {@code t} to fire {@code delayMillis} from {@code nowMillis}. */
    public void schedule(Timeout t, long delayMillis, long nowMillis) {
        if (t.slot >= 0) {
            cancel(t);
        }
        long tick = Math.max(currentTick + 1, (nowMillis + delayMillis + tickMillis - 1) / tickMillis);
        int s = (int) (tick & mask);
        t.deadlineTick = tick;
        t.slot = s;
        t.prev = null;
        t.next = heads[s];
        if (heads[s] != null) {
            heads[s].prev = t;
        }
        heads[s] = t;
        armed++;
    }

    /** Disarms {@code t}; nothing happens if it is not armed. */
    public void cancel(Timeout t) {
        int s = t.slot;
        if (s < 0) {
            return;
        }
        if (t.prev != null) {
            t.prev.next = t.next;
        } else {
            heads[s] = t.next;
        }
        if (t.next != null) {
            t.next.prev = t.prev;
        }
        t.prev = null;
        t.next = null;
        t.slot = -1;
        armed--;
    }

    /** Fires every node whose tick has passed by {@code nowMillis}. */
    public void advance(long nowMillis) {
        long target = nowMillis / tickMillis;
        if (armed == 0) {
            currentTick = Math.max(currentTick, target);
            return;
        }
        // At most one full turn needs visiting: a longer pause has visited every slot once.
        long from = Math.max(currentTick + 1, target - mask);
        for (long tick = from; tick <= target; tick++) {
            // Moving currentTick first makes a node re-armed from onTimeout land on a later tick.
            currentTick = tick;
            int s = (int) (tick & mask);
            Timeout t = heads[s];
            while (t != null) {
                Timeout next = t.next;
                if (t.deadlineTick <= target) {
                    cancel(t);
                    t.onTimeout();
                    if (next != null && next.slot != s) {
                        next = heads[s]; // onTimeout disarmed our successor: start the slot again
                    }
                }
                t = next;
            }
        }
        currentTick = Math.max(currentTick, target);
    }

    /** How long the loop may sleep before the next tick that could fire something; -1 if none armed. */
    public long millisToNextTick(long nowMillis) {
        if (armed == 0) {
            return -1;
        }
        return Math.max(1, (currentTick + 1) * tickMillis - nowMillis);
    }

    /** Nodes armed now. */
    public int armed() {
        return armed;
    }
}
