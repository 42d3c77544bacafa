package dev.peregrine.client;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Spreads calls over upstreams, each reached through an {@link HttpClient} or a {@link PipelineClient}:
 * the upstream with the fewest calls pending gets the next one, ties going to the one sent the fewest
 * in all. A failing upstream is ejected with exponential backoff (see {@link Upstream}'s states), so a
 * backend that fails fast draws no load.
 * <pre>{@code
 * BalancingClient lb = BalancingClient.builder()
 *         .upstream("http://10.0.0.1:8080", http)            // any HttpSender
 *         .upstream("http://10.0.0.2:8080", pipelined)
 *         .failureIf(r -> r.status() >= 500)                  // optional: a 5xx counts as a failure
 *         .healthCheck("/health/ready", Duration.ofSeconds(5)) // optional active probe
 *         .build();
 * lb.send(ClientRequest.get("http://service/plaintext"));    // scheme, host and port become the upstream's
 * lb.add("http://10.0.0.3:8080", http);                      // live
 * lb.remove("http://10.0.0.1:8080");                         // no new calls; calls under way finish
 * }</pre>
 * A call's scheme, host and port are replaced by its upstream's origin; path, query, headers and body
 * stay. A call whose upstream refused the connection (phase CONNECT: nothing was sent) goes once to
 * another upstream. When every upstream is ejected the call fails at once with phase
 * {@link ClientException.Phase#UNAVAILABLE}. Closing the balancer stops the probe; the senders belong
 * to the caller.
 *
 * <p>Thread: any.
 */
public final class BalancingClient implements HttpSender, AutoCloseable {
    private final LongSupplier clock;
    private final Predicate<ClientResponse> failureIf;
    private final int ejectAfter;
    private final long baseEjectionNanos;
    private final long maxEjectionNanos;
    private final HealthProbe probe;
    /** Copy on write: {@link #add} and {@link #remove} are rare, {@link #send} reads it lock-free. */
    private volatile Upstream[] upstreams;

    private BalancingClient(Builder b) {
        this.clock = b.clock;
        this.failureIf = b.failureIf;
        this.ejectAfter = b.ejectAfter;
        this.baseEjectionNanos = b.baseEjection.toNanos();
        this.maxEjectionNanos = b.maxEjection.toNanos();
        this.upstreams = b.upstreams.toArray(new Upstream[0]);
        this.probe = b.probePath == null ? null : new HealthProbe(this, b.probePath, b.probeInterval);
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public CompletableFuture<ClientResponse> send(ClientRequest request) {
        CompletableFuture<ClientResponse> result = new CompletableFuture<>();
        send(request, null, result);
        return result;
    }

    /** Sends to the best upstream but {@code avoid}; completes {@code result}. */
    private void send(ClientRequest request, Upstream avoid, CompletableFuture<ClientResponse> result) {
        long now = clock.getAsLong();
        Upstream u;
        int claim;
        do {
            u = pick(now, avoid);
            if (u == null) {
                result.completeExceptionally(new ClientException(ClientException.Phase.UNAVAILABLE, request.hostKey(),
                        upstreams.length == 0 ? "no upstream configured" : "every upstream is ejected after failing"));
                return;
            }
            claim = u.claim(now);
        } while (claim == Upstream.REFUSED); // another caller took the trial meanwhile: look again
        Upstream chosen = u;
        boolean trial = claim == Upstream.TRIAL;
        chosen.pending.incrementAndGet();
        chosen.sent.incrementAndGet();
        CompletableFuture<ClientResponse> answer;
        try {
            answer = chosen.sender().send(rewrite(request, chosen.origin()));
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e);
        }
        answer.whenComplete((r, failure) -> {
            chosen.pending.decrementAndGet();
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            if (cause == null) {
                if (failureIf != null && failureIf.test(r)) {
                    chosen.failed(trial, clock.getAsLong(), ejectAfter, baseEjectionNanos, maxEjectionNanos);
                } else {
                    chosen.succeeded(trial);
                }
                result.complete(r);
                return;
            }
            ClientException.Phase phase = cause instanceof ClientException ? ((ClientException) cause).phase() : null;
            if (phase == ClientException.Phase.CONNECT || phase == ClientException.Phase.READ
                    || phase == ClientException.Phase.TOTAL) {
                chosen.failed(trial, clock.getAsLong(), ejectAfter, baseEjectionNanos, maxEjectionNanos);
            } else if (trial) {
                chosen.succeeded(true); // the trial ended without a verdict on the upstream (a POOL limit, a 4xx...)
            }
            if (phase == ClientException.Phase.CONNECT && avoid == null && upstreams.length > 1) {
                send(request, chosen, result); // nothing was sent: another upstream may take it
            } else {
                result.completeExceptionally(cause);
            }
        });
    }

    /** The selectable upstream with the fewest pending, ties to the fewest sent; null when there is none. */
    private Upstream pick(long now, Upstream avoid) {
        Upstream best = null;
        for (Upstream u : upstreams) {
            if (u == avoid || !u.selectable(now)) {
                continue;
            }
            if (best == null || u.pending() < best.pending() || u.pending() == best.pending() && u.sent() < best.sent()) {
                best = u;
            }
        }
        return best;
    }

    static ClientRequest rewrite(ClientRequest request, URI origin) {
        return request.retargeted(URI.create(origin.getScheme() + "://" + origin.getRawAuthority() + request.target()));
    }

    /**
     * Adds an upstream while calls go on; it starts with nothing sent, so ties send it calls first.
     *
     * @throws IllegalArgumentException for an origin that is not {@code http(s)://host[:port]} or is already there
     */
    public synchronized void add(String origin, HttpSender sender) {
        Upstream u = new Upstream(origin(origin), sender);
        List<Upstream> next = new ArrayList<>(List.of(upstreams));
        for (Upstream o : next) {
            if (o.origin().equals(u.origin())) {
                throw new IllegalArgumentException("upstream already there: " + origin);
            }
        }
        next.add(u);
        upstreams = next.toArray(new Upstream[0]);
    }

    /** Removes an upstream: it gets no new call; calls under way on it finish. Returns whether it was there. */
    public synchronized boolean remove(String origin) {
        URI o = origin(origin);
        List<Upstream> next = new ArrayList<>(List.of(upstreams));
        boolean removed = next.removeIf(u -> u.origin().equals(o));
        upstreams = next.toArray(new Upstream[0]);
        return removed;
    }

    /** The upstreams now, with their counters and states. */
    public List<Upstream> upstreams() {
        return List.of(upstreams);
    }

    /** Runs one round of the health probe now (tests; the probe's thread calls it on its interval). */
    CompletableFuture<Void> probeNow() {
        return probe == null ? CompletableFuture.completedFuture(null) : probe.round();
    }

    void probeFailed(Upstream u) {
        u.failed(false, clock.getAsLong(), ejectAfter, baseEjectionNanos, maxEjectionNanos);
    }

    /** Stops the health probe. The senders stay open: they are the caller's. */
    @Override
    public void close() {
        if (probe != null) {
            probe.close();
        }
    }

    static URI origin(String origin) {
        URI u;
        try {
            u = URI.create(origin);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not an origin: " + origin, e);
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        String path = u.getRawPath();
        if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null
                || path != null && !path.isEmpty() && !path.equals("/") || u.getRawQuery() != null) {
            throw new IllegalArgumentException("not an http(s)://host[:port] origin: " + origin);
        }
        int port = u.getPort() > 0 ? u.getPort() : scheme.equals("https") ? 443 : 80;
        return URI.create(scheme + "://" + u.getHost() + ":" + port);
    }

    /** Settings of a {@link BalancingClient}. Not thread-safe. */
    public static final class Builder {
        private final List<Upstream> upstreams = new ArrayList<>();
        private LongSupplier clock = System::nanoTime;
        private Predicate<ClientResponse> failureIf;
        private int ejectAfter = 1;
        private Duration baseEjection = Duration.ofSeconds(1);
        private Duration maxEjection = Duration.ofSeconds(30);
        private String probePath;
        private Duration probeInterval;

        private Builder() {
        }

        /** An upstream: its origin ({@code http(s)://host[:port]}) and what reaches it. */
        public Builder upstream(String origin, HttpSender sender) {
            if (sender == null) {
                throw new IllegalArgumentException("sender must not be null");
            }
            URI o = origin(origin);
            for (Upstream u : upstreams) {
                if (u.origin().equals(o)) {
                    throw new IllegalArgumentException("upstream already there: " + origin);
                }
            }
            upstreams.add(new Upstream(o, sender));
            return this;
        }

        /** Responses that count as a failure of their upstream, e.g. {@code r -> r.status() >= 500}. Default: none. */
        public Builder failureIf(Predicate<ClientResponse> p) {
            this.failureIf = p;
            return this;
        }

        /** Failures in a row that eject a healthy upstream (default 1). */
        public Builder ejectAfter(int failures) {
            if (failures < 1) {
                throw new IllegalArgumentException("ejectAfter must be at least 1: " + failures);
            }
            this.ejectAfter = failures;
            return this;
        }

        /** The first ejection's length (default 1 s); each one in a row lasts twice the one before, up to {@code max}. */
        public Builder ejection(Duration base, Duration max) {
            if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
                throw new IllegalArgumentException("ejection wants 0 < base <= max: " + base + ", " + max);
            }
            this.baseEjection = base;
            this.maxEjection = max;
            return this;
        }

        /**
         * Probes every upstream with {@code GET path} each {@code interval}: a 2xx puts an ejected one back
         * in service, anything else counts as a failure. Off by default.
         */
        public Builder healthCheck(String path, Duration interval) {
            if (path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException("healthCheck wants a path starting with /: " + path);
            }
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("healthCheck interval must be positive: " + interval);
            }
            this.probePath = path;
            this.probeInterval = interval;
            return this;
        }

        /** The clock ejections are timed by, in nanoseconds (default {@link System#nanoTime}); for tests. */
        public Builder clock(LongSupplier nanos) {
            this.clock = nanos;
            return this;
        }

        public BalancingClient build() {
            return new BalancingClient(this);
        }
    }
}
