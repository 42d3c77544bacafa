package dev.peregrine.loop;

import java.util.Arrays;

/**
 * The fine deadlines of one loop: a binary min-heap of {@link FineTimeout} nodes by
 * {@link System#nanoTime()} deadline, each node knowing its index (so cancelling is O(log n)). It sits
 * beside the {@link TimerWheel}, which rounds every deadline up to its 10 ms tick: a delay of a few
 * milliseconds (a teleport batch's) is kept here instead, and the loop's wait becomes the smaller of the
 * wheel's next tick and the nearest fine deadline ({@link LoopContext#runTimers}, and the native
 * transports' handler through {@link #nanosToNext}). An empty heap costs the loop one length check
 * per wait and nothing else: no clock read, no earlier wake-up.
 * <pre>
 *   heap[0] = nearest deadline;  heap[i]'s children are heap[2i+1], heap[2i+2], never earlier than it
 * </pre>
 * The array starts at 16 and doubles when full (a loop with many batches waiting at once); arming,
 * re-arming and cancelling allocate nothing otherwise.
 *
 * <p>Thread: the owning loop thread only.
 */
public final class FineTimers {
    private FineTimeout[] heap = new FineTimeout[16];
    private int size;

    /** Arms (or re-arms) {@code t} to fire {@code delayNanos} after {@code nowNanos} ({@link System#nanoTime()}). */
    public void schedule(FineTimeout t, long delayNanos, long nowNanos) {
        if (t.index >= 0) {
            cancel(t);
        }
        t.deadlineNanos = nowNanos + Math.max(0, delayNanos);
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        heap[i] = t;
        t.index = i;
        up(i);
    }

    /** Disarms {@code t}; nothing happens if it is not armed. */
    public void cancel(FineTimeout t) {
        int i = t.index;
        if (i < 0) {
            return;
        }
        removeAt(i);
    }

    /** Whether no node is armed. */
    public boolean isEmpty() {
        return size == 0;
    }

    /** Nodes armed now. */
    public int armed() {
        return size;
    }

    /** The nearest deadline ({@link System#nanoTime()}); meaningful only when not {@link #isEmpty}. */
    public long nextDeadlineNanos() {
        return heap[0].deadlineNanos;
    }

    /** Nanoseconds from {@code nowNanos} to the nearest deadline (0 if due), or -1 if none is armed. */
    public long nanosToNext(long nowNanos) {
        return size == 0 ? -1 : Math.max(0, heap[0].deadlineNanos - nowNanos);
    }

    /**
     * Whole milliseconds a wait of millisecond resolution ({@code Selector.select}) may last without
     * passing the nearest deadline by more than its rounding: the remaining time rounded up, at least 1
     * (0 would mean "forever" to a selector); -1 if none is armed.
     */
    public long millisToNext(long nowNanos) {
        if (size == 0) {
            return -1;
        }
        long nanos = heap[0].deadlineNanos - nowNanos;
        return Math.max(1, (nanos + 999_999) / 1_000_000);
    }

    /** Fires every node due by {@code nowNanos}, nearest first; returns how many fired. */
    public int runDue(long nowNanos) {
        int fired = 0;
        while (size > 0 && heap[0].deadlineNanos - nowNanos <= 0) {
            FineTimeout t = heap[0];
            removeAt(0);
            fired++;
            t.onTimeout(); // may re-arm itself or others: it is out of the heap already
        }
        return fired;
    }

    private void removeAt(int i) {
        FineTimeout gone = heap[i];
        int last = --size;
        FineTimeout moved = heap[last];
        heap[last] = null;
        gone.index = -1;
        if (i == last) {
            return;
        }
        heap[i] = moved;
        moved.index = i;
        if (i > 0 && moved.deadlineNanos - heap[(i - 1) >>> 1].deadlineNanos < 0) {
            up(i);
        } else {
            down(i);
        }
    }

    private void up(int i) {
        FineTimeout t = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            FineTimeout p = heap[parent];
            if (t.deadlineNanos - p.deadlineNanos >= 0) {
                break;
            }
            heap[i] = p;
            p.index = i;
            i = parent;
        }
        heap[i] = t;
        t.index = i;
    }

    private void down(int i) {
        FineTimeout t = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && heap[right].deadlineNanos - heap[child].deadlineNanos < 0) {
                child = right;
            }
            FineTimeout c = heap[child];
            if (t.deadlineNanos - c.deadlineNanos <= 0) {
                break;
            }
            heap[i] = c;
            c.index = i;
            i = child;
        }
        heap[i] = t;
        t.index = i;
    }
}
