package dev.peregrine.teleport;

import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;
import org.jctools.queues.atomic.MpmcAtomicArrayQueue;

import java.util.concurrent.CompletableFuture;

/**
 * The free list of one {@link TeleportChannel}'s {@link TeleportCall}s, so that a call allocates no
 * {@code TeleportCall} once the channel is warm (as the HTTP/1.1 client's {@code CallRecycler}).
 * Calls are taken by whichever thread sends and given back by the channel's loop once nothing holds
 * them (answered, or a cancelled one whose answer came; a call that failed otherwise is not given back).
 * <pre>
 *   acquire: poll, else new TeleportCall(channel)        (any thread)
 *   recycle: off the wheel, references dropped, offered;  (the channel's loop)
 *            dropped when the list is full
 * </pre>
 * A bounded lock-free array queue (JCTools' {@code MpmcAtomicArrayQueue}: no {@code Unsafe}, no node per
 * element) of the client's {@code maxInFlight} calls, at most 1024: a burst beyond costs allocations,
 * not correctness.
 *
 * <p>Thread: as each method says.
 */
final class CallPool {
    private final MpmcAtomicArrayQueue<TeleportCall> free;
    private final TeleportChannel channel;

    CallPool(TeleportChannel channel, int maxInFlight) {
        this.channel = channel;
        this.free = new MpmcAtomicArrayQueue<>(Math.max(2, Math.min(maxInFlight, 1024)));
    }

    /** A call for {@code request}, told by {@code future}, or by {@code response} and {@code callback}. Thread: any. */
    TeleportCall acquire(ClientRequest request, CompletableFuture<ClientResponse> future, ReusableResponse response,
                         ResponseCallback callback) {
        TeleportCall call = free.poll();
        if (call == null) {
            call = new TeleportCall(channel);
        }
        return call.init(request, future, response, callback);
    }

    /** {@code call} is out of the channel's queue and table: free for the next send. Thread: the channel's loop. */
    void recycle(TeleportCall call) {
        channel.loop.timers().cancel(call);
        call.clear();
        free.offer(call);
    }
}
