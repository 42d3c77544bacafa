package dev.peregrine.jmh.client;

import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.HttpSender;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One callback for every reuse-path call of a benchmark invocation: sums the statuses (a failure counts
 * -1) and wakes the benchmark thread when the last call ended. Parking and unparking allocate nothing,
 * so a reuse row shows the client's own allocation.
 *
 * <p>Thread: the callbacks run on the client's loop; {@link #arm} and {@link #await} on the benchmark thread.
 */
public final class CallbackWaiter implements ResponseCallback {
    private final AtomicInteger left = new AtomicInteger();
    private final AtomicInteger statusSum = new AtomicInteger();
    private volatile Thread owner;

    /** Expects {@code calls} callbacks. */
    public void arm(int calls) {
        owner = Thread.currentThread();
        statusSum.set(0);
        left.set(calls);
    }

    @Override
    public void onResponse(ReusableResponse response, ClientException failure) {
        statusSum.addAndGet(failure == null ? response.status() : -1);
        if (left.decrementAndGet() == 0) {
            LockSupport.unpark(owner);
        }
    }

    /** Waits for every call armed; returns the sum of their statuses. */
    public int await() {
        while (left.get() > 0) {
            LockSupport.park(this);
        }
        return statusSum.get();
    }

    /**
     * Makes {@code calls} calls of {@code request} on {@code sender}'s reuse path in batches of
     * {@code inFlight} (sent together with {@code responses[0..inFlight)}, all awaited); returns the sum
     * of the statuses.
     */
    public int sendInBatches(HttpSender sender, ClientRequest request, ReusableResponse[] responses, int calls, int inFlight) {
        int sum = 0;
        for (int done = 0; done < calls; done += inFlight) {
            arm(inFlight);
            for (int i = 0; i < inFlight; i++) {
                sender.send(request, responses[i], this);
            }
            sum += await();
        }
        return sum;
    }
}
