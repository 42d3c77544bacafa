package dev.peregrine.teleport;

import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;
import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;

import java.util.concurrent.CompletableFuture;

/**
 * The free list of one {@link TeleportChannel}'s {@link TeleportCall}s, so that a call allocates no
 * {@code TeleportCall} once the channel is warm (as the HTTP/1.1 client's {@code CallRecycler}).
 * Calls are taken by whichever thread sends and given back by the channel's loop once nothing holds
 * them (answered, or a cancelled one whose answer came; a call that failed otherwise is not given back).
 * <pre>
 *   recycle (the loop):  off the wheel, references dropped, onto the loop's spare stack
 *                        (full: published first)
 *   publish (the loop):  the spare stack into the shared queue, one claim of its slots for all
 *                        (MPMC fill); what the queue has no room for is dropped. At the end of each
 *                        pass over the input (TeleportChannel.frames), and when the stack is full
 *   acquire (any):       on the loop: the spare stack first (no atomic operation: a callback's next
 *                        call takes the call just answered); then the shared queue; else a new call
 * </pre>
 * The shared queue is a bounded lock-free array queue (JCTools' {@code MpmcAtomicArrayQueue}: no
 * {@code Unsafe}, no node per element) of the client's {@code maxInFlight} calls, at most 1024: a burst
 * beyond costs allocations, not correctness. Gathering the answered calls on the loop and publishing
 * them together spares the loop a contended compare-and-set per call (the producer index the sending
 * threads' polls also touch). A thread that sends before the pass that answered its last call has
 * published finds fewer calls and makes new ones, once: the calls then number what is in flight plus
 * at most a stack's worth, and stay that many.
 *
 * <p>Thread: as each method says.
 */
final class CallPool {
    /** Calls the loop keeps between publishes. */
    static final int SPARE = 64;

    private final MpmcAtomicArrayQueue<TeleportCall> free;
    private final TeleportChannel channel;
    private final TeleportCall[] spare = new TeleportCall[SPARE];
    private int spares;
    private final MessagePassingQueue.Supplier<TeleportCall> pop = this::pop;

    CallPool(TeleportChannel channel, int maxInFlight) {
        this.channel = channel;
        this.free = new MpmcAtomicArrayQueue<>(Math.max(2, Math.min(maxInFlight, 1024)));
    }

    /**
     * A call for {@code request}, told by {@code future}, or by {@code response} and {@code callback};
     * {@code onLoop}: the caller runs on the channel's loop. Thread: any.
     */
    TeleportCall acquire(boolean onLoop, ClientRequest request, CompletableFuture<ClientResponse> future,
                         ReusableResponse response, ResponseCallback callback) {
        TeleportCall call = null;
        if (onLoop && spares > 0) {
            call = pop();
        }
        if (call == null) {
            call = free.poll();
        }
        if (call == null) {
            call = new TeleportCall(channel);
        }
        return call.init(request, future, response, callback);
    }

    /** {@code call} is out of the channel's queue and table: free for the next send. Thread: the channel's loop. */
    void recycle(TeleportCall call) {
        channel.loop.timers().cancel(call);
        call.clear();
        if (spares == SPARE) {
            publish();
        }
        spare[spares++] = call;
    }

    /** Hands the spare calls to other threads' acquires; those the queue has no room for are dropped. Thread: the loop. */
    void publish() {
        if (spares == 0) {
            return;
        }
        free.fill(pop, spares);
        while (spares > 0) {
            spare[--spares] = null;
        }
    }

    private TeleportCall pop() {
        TeleportCall call = spare[--spares];
        spare[spares] = null;
        return call;
    }
}
