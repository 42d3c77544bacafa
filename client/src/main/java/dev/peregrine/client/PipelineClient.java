package dev.peregrine.client;

import dev.peregrine.loop.LoopContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A pipelining HTTP/1.1 client (RFC 9112 §9.3.2): many requests in flight on each connection, their
 * responses matched in order, on the loops and with the settings (timeouts, retries, TLS, body limit)
 * of an {@link HttpClient}.
 * <pre>{@code
 * try (HttpClient http = HttpClient.builder().build();
 *      PipelineClient pipe = PipelineClient.on(http).maxConns(2).maxPending(256).build()) {
 *     CompletableFuture<ClientResponse> f = pipe.send(ClientRequest.get("http://localhost:8080/plaintext"));
 * }
 * }</pre>
 * <ul>
 *   <li>Each host gets up to {@code maxConns} connections per loop, each with at most {@code maxPending}
 *       requests written or waiting to be; a call beyond that fails at once with phase
 *       {@link ClientException.Phase#POOL} (the caller sheds or slows down: a queue would hide it).</li>
 *   <li>Requests are batched: the requests that reach a loop in one turn leave in one write at the end
 *       of it, or, with {@code maxBatchDelay}, up to that long later (a fine deadline of the loop, not rounded to the timer wheel's 10 ms tick).</li>
 *   <li>A broken connection (FIN, RST, a malformed response, {@code Connection: close}, the read timeout)
 *       fails the call whose response had begun; every call behind it got no byte, and the idempotent
 *       ones are sent again on another connection within {@code maxAttempts} and the total timeout.</li>
 *   <li>A call made on one of the client's loop threads (from a callback) stays on that loop; other
 *       threads reach the host's home loop (chosen round-robin) through its task queue.</li>
 *   <li>Redirects are not followed: a 3xx is the answer.</li>
 * </ul>
 * Counters go to the {@link HttpClient#metrics(String)} of each host. Closing a pipeline client
 * closes its connections, not the {@link HttpClient}.
 *
 * <p>Thread: any.
 */
public final class PipelineClient implements HttpSender, AutoCloseable {
    final HttpClient client;
    final int maxConns;
    final int maxPending;
    final long maxBatchDelayMillis;
    volatile boolean closed;

    private final List<LoopContext> loops;
    /** Per loop (same index as {@link #loops}): that loop's host states. */
    private final List<Map<String, PipelineHost>> hosts = new ArrayList<>();
    private final Map<String, Integer> homeLoop = new ConcurrentHashMap<>();
    private final AtomicInteger nextLoop = new AtomicInteger();

    private PipelineClient(Builder b) {
        this.client = b.client;
        this.maxConns = b.maxConns;
        this.maxPending = b.maxPending;
        this.maxBatchDelayMillis = b.maxBatchDelay.toMillis();
        this.loops = client.loops();
        for (int i = 0; i < loops.size(); i++) {
            hosts.add(new ConcurrentHashMap<>());
        }
    }

    /** A builder for a pipelining client on {@code client}'s loops and settings. */
    public static Builder on(HttpClient client) {
        return new Builder(client);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException for a request with a streamed body (send it with {@link HttpClient})
     */
    @Override
    public CompletableFuture<ClientResponse> send(ClientRequest request) {
        CompletableFuture<ClientResponse> future = new CompletableFuture<>();
        send(request, future, null, null);
        return future; // the call may be answered and recycled at once: only the local future is used after sending
    }

    /**
     * The reuse path, pipelined: like {@link HttpClient#send(ClientRequest, ReusableResponse,
     * ResponseCallback)}, allocating nothing once warm, and answered in order like {@link #send(ClientRequest)}.
     *
     * @throws IllegalArgumentException for a request with a streamed body, or a null response or callback
     * @throws IllegalStateException when {@code response} is still in a call
     */
    @Override
    public void send(ClientRequest request, ReusableResponse response, ResponseCallback callback) {
        if (response == null || callback == null) {
            throw new IllegalArgumentException("response and callback must not be null");
        }
        send(request, null, response, callback);
    }

    private void send(ClientRequest request, CompletableFuture<ClientResponse> future, ReusableResponse response,
                      ResponseCallback callback) {
        if (!request.replayable()) {
            throw new IllegalArgumentException("a PipelineClient does not send streamed request bodies: use HttpClient");
        }
        if (response != null) {
            response.claim();
        }
        long startMillis = System.currentTimeMillis();
        int here = currentLoop();
        int loop = here >= 0 ? here : homeLoop(request.hostKey());
        PipelineHost host = hosts.get(loop).get(request.poolKey()); // a plain get first: no capturing lambda
        if (host == null) {
            host = hosts.get(loop).computeIfAbsent(request.poolKey(), k -> new PipelineHost(this, request, loops.get(loop)));
        }
        Call call = host.calls().acquire(request, startMillis, future, response, callback);
        if (closed || client.closed) {
            call.fail(new ClientException(ClientException.Phase.SHUTDOWN, request.hostKey(), "client closed"));
        } else if (here >= 0) {
            host.submit(call); // a call from the loop (a callback, a proxy) stays on it
        } else {
            host.loop().execute(call); // the call is its own task
        }
    }

    /** The loop a host's calls from outside the loops go to (round-robin at first use). */
    private int homeLoop(String hostKey) {
        Integer i = homeLoop.get(hostKey);
        return i != null ? i : homeLoop.computeIfAbsent(hostKey, k -> Math.floorMod(nextLoop.getAndIncrement(), loops.size()));
    }

    /** The index of the client's loop the caller runs on, or -1. */
    private int currentLoop() {
        for (int i = 0; i < loops.size(); i++) {
            if (loops.get(i).eventLoop().inEventLoop()) {
                return i;
            }
        }
        return -1;
    }

    /** Closes every connection of this client; calls under way fail. The {@link HttpClient} stays open. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int i = 0; i < loops.size(); i++) {
            for (PipelineHost h : hosts.get(i).values()) {
                h.loop().execute(h::closeAll);
            }
        }
    }

    /** Settings of a {@link PipelineClient}. Not thread-safe. */
    public static final class Builder {
        private final HttpClient client;
        private int maxConns = 1;
        private int maxPending = 1024;
        private Duration maxBatchDelay = Duration.ZERO;

        private Builder(HttpClient client) {
            if (client == null) {
                throw new IllegalArgumentException("client must not be null");
            }
            this.client = client;
        }

        /** Connections per host on each of the client's loops (default 1). */
        public Builder maxConns(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxConns must be at least 1: " + n);
            }
            this.maxConns = n;
            return this;
        }

        /** Requests in flight or batched per connection (default 1024); more fail with phase POOL. */
        public Builder maxPending(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxPending must be at least 1: " + n);
            }
            this.maxPending = n;
            return this;
        }

        /**
         * How long a batch may wait for more requests before it is written (default zero: at the end of
         * the loop's turn). The loop's timer has 10 ms ticks; a full batch ({@code maxPending}) leaves at once.
         */
        public Builder maxBatchDelay(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("maxBatchDelay must not be negative: " + d);
            }
            this.maxBatchDelay = d;
            return this;
        }

        public PipelineClient build() {
            return new PipelineClient(this);
        }
    }
}
