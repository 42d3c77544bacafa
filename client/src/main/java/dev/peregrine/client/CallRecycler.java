package dev.peregrine.client;

import org.jctools.queues.atomic.MpmcAtomicArrayQueue;

import java.util.concurrent.CompletableFuture;

/**
 * The free list of one {@link CallSite}'s {@link Call}s, so that a call allocates no {@code Call} once
 * the site is warm. Calls are taken by whichever thread sends (any) and given back by the site's loop
 * when a response answered them ({@link Call#succeed}); a call that failed is not given back, since a
 * wait queue, a lookup or a pipeline may still hold it.
 * <pre>
 *   acquire: poll the queue, else new Call(site)        (any thread)
 *   recycle: offer to the queue, dropped when it is full (the site's loop thread)
 * </pre>
 * A bounded lock-free array queue (JCTools' {@code MpmcAtomicArrayQueue}: no {@code Unsafe}, no node per
 * element); {@value #CAPACITY} calls cover the deepest pipeline a site keeps busy, and a burst beyond
 * that costs allocations, not correctness.
 *
 * <p>Thread: any.
 */
final class CallRecycler {
    static final int CAPACITY = 1024;

    private final MpmcAtomicArrayQueue<Call> free = new MpmcAtomicArrayQueue<>(CAPACITY);
    private final CallSite site;

    CallRecycler(CallSite site) {
        this.site = site;
    }

    /** A call for {@code request}, told by {@code future} or by {@code target} and {@code callback}. */
    Call acquire(ClientRequest request, long nowMillis, CompletableFuture<ClientResponse> future,
                 ReusableResponse target, ResponseCallback callback) {
        Call c = free.poll();
        if (c == null) {
            c = new Call(site);
        }
        return c.init(request, nowMillis, future, target, callback);
    }

    void recycle(Call c) {
        free.offer(c);
    }
}
