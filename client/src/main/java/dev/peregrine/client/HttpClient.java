package dev.peregrine.client;

import dev.peregrine.Transport;
import dev.peregrine.loop.LoopConfig;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.TransportServer;
import dev.peregrine.transport.choice.TransportChoice;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * An HTTP/1.1 and HTTP/2 client on Peregrine's event loops: per-host pools of keep-alive connections
 * (or, with {@link Builder#http2}, one HTTP/2 connection per host carrying the calls as streams), finite
 * timeouts for every phase, retries of idempotent requests, TLS with hostname verification.
 * <pre>{@code
 * try (HttpClient client = HttpClient.builder().build()) {
 *     ClientResponse r = client.get("http://localhost:8080/plaintext");
 *     CompletableFuture<ClientResponse> f = client.send(ClientRequest.builder("POST", url).body("x").build());
 * }
 * }</pre>
 * Each host's connections live on one loop (chosen round-robin when the host is first used); calls
 * from other threads reach it through the loop's task queue. Every failure is a
 * {@link ClientException} naming the phase and the host.
 *
 * <p>Thread: any.
 */
public final class HttpClient implements HttpSender, AutoCloseable {
    final long connectTimeoutMillis;
    final long readTimeoutMillis;
    final long totalTimeoutMillis;
    final int maxConnsPerHost;
    final long maxIdleMillis;
    final long maxLifetimeMillis;
    final long maxConnWaitMillis;
    final long maxResponseBodySize;
    final int maxHeadSize;
    final int maxAttempts;
    final Predicate<ClientRequest> retryIf;
    final int followRedirects;
    final boolean allowRedirectDowngrade;
    final SSLContext sslContext;
    final boolean verifyHostname;
    final Dialer dialer;
    final Http2Mode http2;
    final int http2Connections;
    volatile boolean closed;

    private final TransportServer loops;
    private final List<LoopContext> contexts;
    private final Map<String, HostPool> pools = new ConcurrentHashMap<>();
    private final Map<String, HostMetrics> metrics = new ConcurrentHashMap<>();
    private final Map<String, InetSocketAddress> resolved = new ConcurrentHashMap<>();
    private final ExecutorService resolver;
    private final AtomicInteger nextLoop = new AtomicInteger();

    private HttpClient(Builder b) throws IOException {
        this.connectTimeoutMillis = b.connectTimeout.toMillis();
        this.readTimeoutMillis = b.readTimeout.toMillis();
        this.totalTimeoutMillis = b.totalTimeout.toMillis();
        this.maxConnsPerHost = b.maxConnsPerHost;
        this.maxIdleMillis = b.maxIdle.toMillis();
        this.maxLifetimeMillis = b.maxLifetime.toMillis();
        this.maxConnWaitMillis = b.maxConnWait.toMillis();
        this.maxResponseBodySize = b.maxResponseBodySize;
        this.maxHeadSize = 16 * 1024;
        this.maxAttempts = b.maxAttempts;
        this.retryIf = b.retryIf;
        this.followRedirects = b.followRedirects;
        this.allowRedirectDowngrade = b.allowRedirectDowngrade;
        this.verifyHostname = b.verifyHostname;
        this.dialer = b.dialer;
        this.http2 = b.http2;
        this.http2Connections = b.http2Connections;
        try {
            this.sslContext = b.sslContext != null ? b.sslContext : SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no default TLS context", e);
        }
        // The client's loops are configured here alone: no server setting (nor PEREGRINE_* variable)
        // reaches them. What one response may hold in memory bounds the largest pooled buffer.
        LoopConfig loopConfig = LoopConfig.builder().threads(b.threads)
                .largestPooledBuffer(maxHeadSize + (int) Math.min(b.maxResponseBodySize, Integer.MAX_VALUE / 2)
                        + LoopConfig.DEFAULT_BUFFER_SIZE)
                .build();
        LoopSetup setup = LoopSetup.outbound(loopConfig);
        TransportEngine engine = TransportChoice.select(b.transport);
        this.loops = engine.startLoops(setup, b.threads);
        this.contexts = loops.loops();
        this.resolver = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "peregrine-client-dns");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * The transport for the client's loops, chosen as a server's is: io_uring where asked and it runs
     * (else one INFO line and as for AUTO), NIO where asked, else epoll where it runs, else NIO.
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Sends {@code request}; the future completes with the response or a {@link ClientException}.
     * With {@code followRedirects(n)}, redirects are followed ({@link Redirects}) and the future gets
     * the last response; the total timeout covers every hop. The future may complete on a loop
     * thread: a dependent action there must not block.
     */
    @Override
    public CompletableFuture<ClientResponse> send(ClientRequest request) {
        long startMillis = System.currentTimeMillis();
        CompletableFuture<ClientResponse> first = hop(request, startMillis);
        if (followRedirects == 0) {
            return first;
        }
        CompletableFuture<ClientResponse> last = new CompletableFuture<>();
        follow(request, first, 0, startMillis, last);
        return last;
    }

    /**
     * Completes {@code last} with {@code answer}'s response, or sends the redirect it asks for.
     * Runs on the thread that completes {@code answer} (a loop thread, or the caller's at once).
     */
    private void follow(ClientRequest request, CompletableFuture<ClientResponse> answer, int hops, long startMillis,
                        CompletableFuture<ClientResponse> last) {
        answer.whenComplete((r, failure) -> {
            if (failure != null) {
                last.completeExceptionally(failure);
                return;
            }
            ClientRequest next;
            try {
                next = Redirects.next(request, r.status(), r.header("Location"), allowRedirectDowngrade);
            } catch (ClientException e) {
                last.completeExceptionally(e);
                return;
            }
            if (next == null) {
                last.complete(r);
            } else if (hops == followRedirects) {
                last.completeExceptionally(new ClientException(ClientException.Phase.REDIRECT, request.hostKey(),
                        "more than " + followRedirects + " redirects (the last to " + next.uri() + ")"));
            } else {
                follow(next, hop(next, startMillis), hops + 1, startMillis, last);
            }
        });
    }

    /**
     * Sends {@code request} and hands the response body to {@code listener} as it arrives, with
     * backpressure, instead of holding it in memory (no body size limit applies). The future completes
     * with the head (its body empty) once the whole body was handed on, or with a
     * {@link ClientException}. Redirects are not followed: a 3xx is the answer.
     */
    public CompletableFuture<ClientResponse> send(ClientRequest request, ResponseBodyListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        return hop(request, System.currentTimeMillis(), listener);
    }

    private CompletableFuture<ClientResponse> hop(ClientRequest request, long startMillis) {
        return hop(request, startMillis, null);
    }

    /** One request to one host: its pool's loop takes it. */
    private CompletableFuture<ClientResponse> hop(ClientRequest request, long startMillis, ResponseBodyListener listener) {
        HostPool pool = pool(request);
        CompletableFuture<ClientResponse> future = new CompletableFuture<>();
        Call call = pool.calls().acquire(request, startMillis, future, null, null);
        call.listener = listener;
        dispatch(pool, call); // the call may be answered and recycled at once: only the local future is used after this
        return future;
    }

    /**
     * The reuse path: sends {@code request} and fills {@code response} in place, then calls
     * {@code callback} on the loop thread. Once the host's pool, the response object and the callback
     * are warm, the call allocates nothing: its internal {@code Call} comes from a free list and the
     * response's arrays are reused. {@code response} may not be passed to another call until its callback
     * ran; what it holds is valid until then (see {@link ReusableResponse}). With
     * {@code followRedirects(n)} set, redirects are followed through {@link #send(ClientRequest)} (which
     * allocates), so that both paths answer alike. A request with a streamed body is sent as any other.
     *
     * @throws IllegalStateException when {@code response} is still in a call
     * @throws IllegalArgumentException when {@code response} or {@code callback} is null
     */
    @Override
    public void send(ClientRequest request, ReusableResponse response, ResponseCallback callback) {
        if (response == null || callback == null) {
            throw new IllegalArgumentException("response and callback must not be null");
        }
        if (followRedirects > 0) {
            HttpSender.super.send(request, response, callback);
            return;
        }
        response.claim();
        HostPool pool = pool(request);
        dispatch(pool, pool.calls().acquire(request, System.currentTimeMillis(), null, response, callback));
    }

    private HostPool pool(ClientRequest request) {
        HostPool pool = pools.get(request.poolKey()); // a plain get first: computeIfAbsent's capturing lambda allocates
        if (pool == null) {
            pool = pools.computeIfAbsent(request.poolKey(),
                    k -> new HostPool(this, request, contexts.get(Math.floorMod(nextLoop.getAndIncrement(), contexts.size()))));
        }
        return pool;
    }

    private void dispatch(HostPool pool, Call call) {
        if (closed) {
            call.fail(new ClientException(ClientException.Phase.SHUTDOWN, call.request.hostKey(), "client closed"));
        } else if (pool.loop().inEventLoop()) {
            pool.submit(call); // a call from the loop (a proxy handler, a callback) stays on it
        } else {
            pool.loop().execute(call); // the call is its own task
        }
    }

    /** {@code GET url}, waiting for the response. */
    public ClientResponse get(String url) throws ClientException {
        return execute(ClientRequest.get(url));
    }

    /** Counters of one {@code host:port} (created on first use). */
    public HostMetrics metrics(String hostAndPort) {
        return metricsFor(hostAndPort);
    }

    HostMetrics metricsFor(String host) {
        return metrics.computeIfAbsent(host, h -> new HostMetrics());
    }

    /** A cached address, or null when a lookup is needed (literal addresses never need one). */
    InetSocketAddress resolve(String host, int port) {
        String key = host + ":" + port;
        InetSocketAddress a = resolved.get(key);
        if (a != null) {
            return a;
        }
        if (dev.peregrine.tls.engine.TlsClientLayer.isIpLiteral(host)) {
            try {
                a = new InetSocketAddress(InetAddress.getByName(host), port); // no lookup for a literal
            } catch (UnknownHostException e) {
                return null;
            }
            resolved.put(key, a);
            return a;
        }
        return null;
    }

    /**
     * Looks {@code host} up on a resolver thread (a lookup blocks), then calls {@code then} with the
     * address or the failure on {@code loop}.
     */
    void lookUp(String host, int port, dev.peregrine.loop.EventLoop loop,
                java.util.function.BiConsumer<InetSocketAddress, IOException> then) {
        resolver.execute(() -> {
            InetSocketAddress a = null;
            IOException failure = null;
            try {
                a = new InetSocketAddress(InetAddress.getByName(host), port);
                resolved.put(host + ":" + port, a);
            } catch (UnknownHostException e) {
                failure = e;
            }
            InetSocketAddress done = a;
            IOException why = failure;
            loop.execute(() -> then.accept(done, why));
        });
    }

    /**
     * Opens a WebSocket connection (RFC 6455) to a {@code ws://} or {@code wss://} URI on this client's
     * loops, with {@link dev.peregrine.WebSocketOptions#DEFAULTS} (permessage-deflate offered).
     * See {@link #webSocket(java.net.URI, dev.peregrine.WebSocketOptions, dev.peregrine.WebSocketHandler)}.
     */
    public CompletableFuture<dev.peregrine.websocket.WebSocketSession> webSocket(java.net.URI uri,
                                                                             dev.peregrine.WebSocketHandler handler) {
        return webSocket(uri, dev.peregrine.WebSocketOptions.DEFAULTS, handler);
    }

    /**
     * Opens a WebSocket connection to a {@code ws://} or {@code wss://} URI (docs/websocket.md,
     * "Client"): the future completes with the session once the server's {@code 101} is checked, just
     * before {@code handler.onOpen}, or fails with a {@link ClientException} (phase CONNECT, TLS,
     * RESPONSE for a refused or wrong handshake, READ after {@code connectTimeout}, CLOSED). The
     * session and callbacks are the server's; of {@code options}, the limits, timeouts, subprotocols
     * (offered in order) and compression apply ({@code originCheck} is a server's). A bad URI throws
     * IllegalArgumentException at the call.
     */
    public CompletableFuture<dev.peregrine.websocket.WebSocketSession> webSocket(java.net.URI uri,
            dev.peregrine.WebSocketOptions options, dev.peregrine.WebSocketHandler handler) {
        return WebSocketHandshake.open(this, uri, options, handler, "");
    }

    /**
     * A WebSocket connection to {@code uri} to set up before it opens: extra request fields on the
     * handshake ({@code Authorization}, {@code Cookie}, your own) and the options, then
     * {@link WebSocketBuilder#connect}. The URI is checked at {@code connect}, as by {@link #webSocket}.
     */
    public WebSocketBuilder webSocketBuilder(java.net.URI uri) {
        return new WebSocketBuilder(this, java.util.Objects.requireNonNull(uri, "uri"));
    }

    /** The client's loops (a {@link PipelineClient} on this client uses them too). */
    List<LoopContext> loops() {
        return contexts;
    }

    /** Fails calls still waiting, closes every connection and stops the loops. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (HostPool p : pools.values()) {
            p.loop().execute(p::closeIdle);
        }
        loops.close(1_000);
        resolver.shutdownNow();
    }

    /** Per-host counters; read them from any thread. */
    public static final class HostMetrics {
        public final AtomicLong responses = new AtomicLong();
        public final AtomicLong failures = new AtomicLong();
        public final AtomicLong retries = new AtomicLong();
        public final AtomicLong connectFailures = new AtomicLong();

        @Override
        public String toString() {
            return "responses=" + responses + " failures=" + failures + " retries=" + retries + " connectFailures=" + connectFailures;
        }
    }

    /** Settings; every timeout is finite by default. Not thread-safe. */
    public static final class Builder {
        private int threads = 1;
        private Transport transport = Transport.AUTO;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration readTimeout = Duration.ofSeconds(30);
        private Duration totalTimeout = Duration.ofSeconds(60);
        private int maxConnsPerHost = 64;
        private Duration maxIdle = Duration.ofSeconds(30);
        private Duration maxLifetime = Duration.ZERO;
        private Duration maxConnWait = Duration.ofSeconds(5);
        private long maxResponseBodySize = 16L * 1024 * 1024;
        private int maxAttempts = 2;
        private Predicate<ClientRequest> retryIf;
        private int followRedirects;
        private boolean allowRedirectDowngrade;
        private SSLContext sslContext;
        private boolean verifyHostname = true;
        private Dialer dialer = Dialer.tcp();
        private Http2Mode http2 = Http2Mode.OFF;
        private int http2Connections = 1;

        private Builder() {
        }

        /** Event loops of the client's own (default 1). */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1: " + threads);
            }
            this.threads = threads;
            return this;
        }

        public Builder transport(Transport transport) {
            this.transport = transport;
            return this;
        }

        /** TCP (and TLS) connect, name lookup included. Default 5 s. */
        public Builder connectTimeout(Duration d) {
            this.connectTimeout = positive(d, "connectTimeout");
            return this;
        }

        /** From the request written to the first response byte, and between bytes of a response. Default 30 s. */
        public Builder readTimeout(Duration d) {
            this.readTimeout = positive(d, "readTimeout");
            return this;
        }

        /** The whole call, retries and waiting for a connection included. Default 60 s. */
        public Builder totalTimeout(Duration d) {
            this.totalTimeout = positive(d, "totalTimeout");
            return this;
        }

        /** Connections per host, open or connecting. Default 64. */
        public Builder maxConnsPerHost(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxConnsPerHost must be at least 1: " + n);
            }
            this.maxConnsPerHost = n;
            return this;
        }

        /** How long a connection may stay idle in the pool. Default 30 s. */
        public Builder maxIdle(Duration d) {
            this.maxIdle = positive(d, "maxIdle");
            return this;
        }

        /** How long a connection may be reused at all; zero for no limit (the default). */
        public Builder maxLifetime(Duration d) {
            this.maxLifetime = d;
            return this;
        }

        /** How long a call waits for a free connection at {@code maxConnsPerHost}. Default 5 s. */
        public Builder maxConnWait(Duration d) {
            this.maxConnWait = positive(d, "maxConnWait");
            return this;
        }

        /** Largest response body kept in memory. Default 16 MiB. */
        public Builder maxResponseBodySize(long bytes) {
            if (bytes < 0 || bytes > Integer.MAX_VALUE / 2) {
                throw new IllegalArgumentException("maxResponseBodySize out of range: " + bytes);
            }
            this.maxResponseBodySize = bytes;
            return this;
        }

        /**
         * Attempts per call, the first included (default 2). A retry happens only for an idempotent
         * request (or one with {@code Idempotency-Key}), only on a new connection, only when no response
         * byte has arrived, and within the total timeout.
         */
        public Builder maxAttempts(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1: " + n);
            }
            this.maxAttempts = n;
            return this;
        }

        /** A further condition a retry must meet. */
        public Builder retryIf(Predicate<ClientRequest> p) {
            this.retryIf = p;
            return this;
        }

        /**
         * Follows at most {@code n} redirects per call (default 0: a 3xx is the answer). 303 becomes
         * GET; 301 and 302 turn POST into GET; 307 and 308 keep the method and body.
         * {@code Authorization}, {@code Proxy-Authorization} and {@code Cookie} are dropped when the
         * next hop's origin differs. More than {@code n} hops fail the call with phase
         * {@code REDIRECT}. See {@link Redirects}.
         */
        public Builder followRedirects(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("followRedirects must not be negative: " + n);
            }
            this.followRedirects = n;
            return this;
        }

        /**
         * Whether a redirect from https to http is followed (default false: the call fails with phase
         * {@code REDIRECT}, naming the refused URL). Credentials are dropped across origins either way;
         * the other headers and a 307/308 body would go out in clear.
         */
        public Builder allowRedirectDowngrade(boolean allow) {
            this.allowRedirectDowngrade = allow;
            return this;
        }

        /** Trust (and client keys) for https; default: the JDK's default context. */
        public Builder sslContext(SSLContext ctx) {
            this.sslContext = ctx;
            return this;
        }

        /** Whether a server's certificate must match the host name (default true; off only for tests). */
        public Builder verifyHostname(boolean on) {
            this.verifyHostname = on;
            return this;
        }

        /**
         * How connections are obtained (default {@link Dialer#tcp()}): a Unix domain socket
         * ({@link Dialer#unixDomainSocket}, NIO transport) or a tunnel through an HTTP proxy
         * ({@link Dialer#connectProxy}). Pipelining clients on this client dial the same way.
         */
        public Builder dialer(Dialer dialer) {
            if (dialer == null) {
                throw new IllegalArgumentException("dialer must not be null");
            }
            this.dialer = dialer;
            return this;
        }

        /**
         * Whether to speak HTTP/2 (RFC 9113; docs/http2.md, "Client"): {@link Http2Mode#OFF} (the
         * default), {@link Http2Mode#ALPN} (h2 over TLS when the server chooses it, else HTTP/1.1) or
         * {@link Http2Mode#PRIOR_KNOWLEDGE} (that, and h2c for plain http). An HTTP/2 host has one
         * connection carrying its calls as concurrent streams; {@code maxConnsPerHost} and
         * {@code maxConnWait} then bind only the HTTP/1.1 calls.
         */
        public Builder http2(Http2Mode mode) {
            if (mode == null) {
                throw new IllegalArgumentException("http2 mode must not be null");
            }
            this.http2 = mode;
            return this;
        }

        /**
         * HTTP/2 connections per host (default 1): calls are spread over them, an even share each,
         * and one more is opened only while calls wait for a stream. A load generator wants several.
         */
        public Builder http2Connections(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("http2Connections must be at least 1: " + n);
            }
            this.http2Connections = n;
            return this;
        }

        /**
         * Starts the client's loops.
         *
         * @throws UncheckedIOException when the loops cannot start
         */
        public HttpClient build() {
            try {
                return new HttpClient(this);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot start the client's loops: " + e.getMessage(), e);
            }
        }

        private static Duration positive(Duration d, String what) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }
    }
}
