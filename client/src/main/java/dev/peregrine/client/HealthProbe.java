package dev.peregrine.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The active health probe of a {@link BalancingClient}: every interval, {@code GET path} to each
 * upstream through its own sender. A 2xx puts an ejected upstream back in service; anything else (a
 * failure, another status) counts as a failure of that upstream. Probes are not counted as calls.
 *
 * <p>Thread: one daemon thread per probe fires the rounds; answers arrive on the senders' threads.
 */
final class HealthProbe {
    private final BalancingClient balancer;
    private final String path;
    private final ScheduledExecutorService timer;

    HealthProbe(BalancingClient balancer, String path, Duration interval) {
        this.balancer = balancer;
        this.path = path;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "peregrine-balancer-probe");
            t.setDaemon(true);
            return t;
        });
        long every = interval.toMillis();
        timer.scheduleWithFixedDelay(this::round, every, every, TimeUnit.MILLISECONDS);
    }

    /** Probes every upstream once; the future completes when every answer is in. */
    CompletableFuture<Void> round() {
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (Upstream u : balancer.upstreams()) {
            ClientRequest probe = ClientRequest.get(u.origin() + path);
            CompletableFuture<ClientResponse> answer;
            try {
                answer = u.sender().send(probe);
            } catch (RuntimeException e) {
                answer = CompletableFuture.failedFuture(e);
            }
            all.add(answer.handle((r, failure) -> {
                if (failure == null && r.status() >= 200 && r.status() < 300) {
                    u.probeSucceeded();
                } else {
                    balancer.probeFailed(u);
                }
                return null;
            }));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]));
    }

    void close() {
        timer.shutdownNow();
    }
}
