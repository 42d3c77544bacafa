package dev.peregrine.teleport;

import org.jctools.queues.atomic.MpscAtomicArrayQueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The calls other threads hand to one {@link TeleportChannel}'s loop: a queue drained by one loop task
 * per batch, not one task per call. A caller's hop costs an offer and a read of {@link #scheduled}; only
 * the caller that finds no drain pending queues the task (and wakes the loop). The drain queues every
 * call it finds, then the channel writes them as one batch ({@link TeleportChannel#drained}).
 * <pre>
 *   offer (any thread):  queue.offer(call)  -- full: false, the caller hands the call over as its own task
 *                        scheduled? no: CAS false -&gt; true, execute(drain task)
 *   drain (the loop):    scheduled = false; poll up to capacity calls, each to channel.send;
 *                        still more: schedule again (the loop's I/O is not starved); channel.drained()
 * </pre>
 * No call is stranded (Dekker's pattern, as actor mailboxes use): the offer claims its slot with a CAS
 * of the producer index before the caller reads {@code scheduled}, and the drain clears
 * {@code scheduled} before its poll reads that index (all volatile, so in one total order). Either the
 * poll sees the claim (JCTools' {@code poll} waits for an element whose slot is claimed) or the caller
 * reads {@code scheduled} after the clear and schedules the next drain.
 * A bounded JCTools atomic queue (no {@code Unsafe}, no node per element): nothing allocated per call.
 *
 * <p>Thread: {@link #offer} any; {@link #drain} the channel's loop.
 */
final class CallInbox {
    private static final VarHandle SCHEDULED;

    static {
        try {
            SCHEDULED = MethodHandles.lookup().findVarHandle(CallInbox.class, "scheduled", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MpscAtomicArrayQueue<TeleportCall> queue;
    private final int capacity;
    private final TeleportChannel channel;
    private final Runnable drainTask = this::drain;
    /** A drain task is queued on the loop (or running and not yet past its clear). */
    private volatile boolean scheduled;

    /** An inbox of {@code maxInFlight} calls (at least 2, at most 4096: a burst beyond goes call by call). */
    CallInbox(TeleportChannel channel, int maxInFlight) {
        this.channel = channel;
        this.queue = new MpscAtomicArrayQueue<>(Math.max(2, Math.min(maxInFlight, 4096)));
        this.capacity = queue.capacity();
    }

    /** Hands {@code call} to the loop; false when the inbox is full (nothing done). Thread: any but the loop. */
    boolean offer(TeleportCall call) {
        if (!queue.offer(call)) {
            return false;
        }
        if (!scheduled && SCHEDULED.compareAndSet(this, false, true)) {
            channel.loop.eventLoop().execute(drainTask);
        }
        return true;
    }

    /** Sends every call waiting (at most {@code capacity}; more: another drain is queued). Thread: the loop. */
    private void drain() {
        scheduled = false; // before the first poll: see the class comment
        TeleportCall call;
        int n = 0;
        while (n < capacity && (call = queue.poll()) != null) {
            channel.queue(call);
            n++;
        }
        if (n == capacity && !queue.isEmpty() && SCHEDULED.compareAndSet(this, false, true)) {
            channel.loop.eventLoop().execute(drainTask);
        }
        channel.drained();
    }

    /** The calls left when the channel closed for good, each to {@code channel.send} (which fails them). Thread: the loop. */
    void failWaiting() {
        TeleportCall call;
        while ((call = queue.poll()) != null) {
            channel.send(call);
        }
    }
}
