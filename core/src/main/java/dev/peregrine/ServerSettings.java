package dev.peregrine;

import static dev.peregrine.Checks.millis;
import static dev.peregrine.Checks.positive;

import dev.peregrine.tls.TlsConfig;

import java.time.Duration;

/**
 * Every setting of {@link Server.Builder}, each with its default and its check (an out-of-range value
 * throws at the call): address, loop count, transport, limits, buffers and timeouts; the listeners
 * (HTTPS, TLS, teleport, PROXY protocol) and HTTP/2; the web features (request ids, access log,
 * blocking timeout); the loop watchdog. The builder extends this one class and keeps what the server
 * serves (routes, filters, groups, static files, WebSockets, the operations endpoints) and its start.
 * {@link ServerConfig} and the engine ({@link ServerEngine.Plan}) read these fields when the server
 * starts, and {@link Settings} fills them from {@code peregrine.*} properties and {@code PEREGRINE_*}
 * variables.
 *
 * @param <B> the builder type the setters return
 */
abstract class ServerSettings<B extends ServerSettings<B>> {
    String host = "0.0.0.0";
    int port = 8080;
    int threads = Runtime.getRuntime().availableProcessors();
    Transport transport;
    boolean reusePort = true;
    int ioUringRecvBuffers = 256; // as LoopConfig.DEFAULT_RECV_RING_BUFFERS (the client's loops); the API names no loop type
    int backlog = 1024;
    int maxRequestLineLength = 8 * 1024;
    int maxHeadSize = 16 * 1024;
    int maxHeaderCount = 100;
    long maxBodySize = 8L * 1024 * 1024;
    int maxPendingOutput = 1024 * 1024;
    int readBufferSize = 64 * 1024;
    int writeBufferSize = 64 * 1024;
    long shutdownGraceMillis = 5_000;
    int blockingPoolSize = 256;
    long asyncTimeoutMillis = 30_000;
    long streamBodyThreshold = 1024 * 1024;
    /** -1: unset, the same as {@link #maxBodySize} (a body limit never changes with the handler kind). */
    long maxStreamedBodySize = -1;
    int maxPipelinedRequests = 256;
    int maxRequestsPerConnection = 0;
    int maxConnections = 100_000;
    long headerTimeoutMillis = 10_000;
    long bodyTimeoutMillis = 30_000;
    long idleTimeoutMillis = 60_000;
    long writeTimeoutMillis = 30_000;
    long drainTimeoutMillis = 2_000;
    // ops (issue 13): maximum connection age (gRPC A9); 0 is off
    long maxConnectionAgeMillis;
    long maxConnectionAgeGraceMillis = 10_000;
    int maxConnectionAgeJitter = 10;
    boolean requestDurations;
    long slowHandlerThresholdMillis = 1_000;
    // teleport (docs/teleport.md): the server side's batching, as TeleportClient.Builder's
    long teleportMaxBatchDelayMillis;
    int teleportMaxBatchFrames = 1024;
    int teleportMaxBatchBytes = 64 * 1024;
    // web features (dev.peregrine.web): all off by default
    boolean requestIds;
    dev.peregrine.web.AccessLog accessLog;
    /** The blocking handlers' timeout; 0: only asyncTimeout bounds them. */
    long blockingTimeoutMillis;
    // listeners and protocols, read by the engine (ServerEngine.Plan)
    int httpsPort = -1;
    /** {@link #teleport}'s port, or -1; and the listener it adds (module {@code peregrine-teleport}). */
    int teleportPort = -1;
    /** TLS of the teleport listener ({@link #teleport(int, TlsConfig)}), or null. */
    TlsConfig teleportTls;
    TlsConfig tlsConfig;
    /** Whether {@link #tls} made the main port speak TLS (then there is no second listener). */
    boolean tlsOnMainPort;
    /** HTTP/2 (prior knowledge, ALPN h2, Upgrade: h2c), {@link #http2}, and its limits. */
    boolean http2 = true;
    Http2Options http2Options = Http2Options.DEFAULTS;
    /** Ops (issue 13): PROXY protocol on every listener, or null. */
    dev.peregrine.proxy.ProxyProtocol proxyProtocol;
    dev.peregrine.proxy.ProxyProtocol httpsProxyProtocol;
    // the loop watchdog (server.LoopWatchdog)
    long blockedLoopWarningMillis = 100;
    /** {@link #busyLoopWarning}: the share of an interval (percent; 0: off) and the interval. */
    int busyLoopPercent = 50;
    long busyLoopIntervalMillis = 1000;

    /** The builder itself, returned by every setter. */
    abstract B self();

    /** Port to listen on; 0 picks a free port. Default 8080. */
    public B port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        this.port = port;
        return self();
    }

    /** Address to bind. Default {@code 0.0.0.0}. */
    public B host(String host) {
        this.host = host;
        return self();
    }

    /** Number of event loops. Default: available processors. */
    public B threads(int threads) {
        this.threads = positive(threads, "threads");
        return self();
    }

    /**
     * The event-loop implementation (see {@link Transport}). Default: the system property
     * {@code peregrine.transport}, else {@link Transport#AUTO}.
     */
    public B transport(Transport transport) {
        this.transport = java.util.Objects.requireNonNull(transport, "transport");
        return self();
    }

    /**
     * {@link #transport(Transport)} by name: {@code "auto"}, {@code "epoll"}, {@code "io_uring"} or {@code "nio"}, as
     * command lines and configuration files give it.
     *
     * @throws IllegalArgumentException for another name
     */
    public B transport(String transport) {
        return transport(Transport.parse(transport));
    }

    /**
     * On the io_uring transport: buffers in each loop's provided-buffer ring, 16 KiB each, that
     * connections receive into with one multishot receive each (docs/transports.md); rounded up to a
     * power of two, at most 16384. The ring costs {@code buffers x 16 KiB} of native memory per loop
     * (256: 4 MiB). 0 turns it off: connections receive with a poll and {@code recv}. Other transports
     * ignore it. Default 256.
     */
    public B ioUringRecvBuffers(int buffers) {
        if (buffers < 0 || buffers > 16384) {
            throw new IllegalArgumentException("ioUringRecvBuffers must be 0..16384: " + buffers);
        }
        this.ioUringRecvBuffers = buffers;
        return self();
    }

    /** Whether each loop binds its own socket with {@code SO_REUSEPORT}. Default true. */
    public B reusePort(boolean reusePort) {
        this.reusePort = reusePort;
        return self();
    }

    public B backlog(int backlog) {
        this.backlog = positive(backlog, "backlog");
        return self();
    }

    /** Longest request line in bytes (414 beyond). Default 8 KiB. */
    public B maxRequestLineLength(int bytes) {
        this.maxRequestLineLength = positive(bytes, "maxRequestLineLength");
        return self();
    }

    /** Longest request head in bytes (431 beyond); also bounds chunked trailers. Default 16 KiB. */
    public B maxHeadSize(int bytes) {
        this.maxHeadSize = positive(bytes, "maxHeadSize");
        return self();
    }

    /** Most header fields (431 beyond). Default 100. */
    public B maxHeaderCount(int count) {
        this.maxHeaderCount = positive(count, "maxHeaderCount");
        return self();
    }

    /** Largest request body in bytes (413 beyond). Default 8 MiB; at most 1 GiB. */
    public B maxBodySize(long bytes) {
        if (bytes < 0 || bytes > (1L << 30)) {
            throw new IllegalArgumentException("maxBodySize must be 0..1 GiB: " + bytes);
        }
        this.maxBodySize = bytes;
        return self();
    }

    /** Unsent bytes per connection above which it is not read until they drain. Default 1 MiB. */
    public B maxPendingOutput(int bytes) {
        this.maxPendingOutput = positive(bytes, "maxPendingOutput");
        return self();
    }

    /** Per-loop read buffer size. Default 64 KiB. */
    public B readBufferSize(int bytes) {
        this.readBufferSize = Math.max(1024, bytes);
        return self();
    }

    /** Per-loop write buffer size. Default 64 KiB. */
    public B writeBufferSize(int bytes) {
        this.writeBufferSize = Math.max(1024, bytes);
        return self();
    }

    /** How long {@link Server#close()} lets responses being written finish. Default 5 s. */
    public B shutdownGrace(Duration grace) {
        this.shutdownGraceMillis = grace.toMillis();
        return self();
    }

    /**
     * Threads of the platform pool that runs blocking handlers on JDK 17–20 (on 21+ each runs on
     * its own virtual thread and this is not used). Requests beyond it wait in the pool's queue.
     * Default 256.
     */
    public B blockingPoolSize(int threads) {
        this.blockingPoolSize = positive(threads, "blockingPoolSize");
        return self();
    }

    /**
     * Teleport (docs/teleport.md): how long a response frame may wait for others to share its write.
     * Default 0: inline responses leave at the end of each loop turn, off-loop ones once per pass
     * over the loop's tasks. A timer on the loop's wheel otherwise.
     */
    public B teleportMaxBatchDelay(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("teleportMaxBatchDelay must not be negative: " + delay);
        }
        this.teleportMaxBatchDelayMillis = delay.toMillis();
        return self();
    }

    /** Teleport: a batch of responses leaves once it holds this many frames. Default 1024. */
    public B teleportMaxBatchFrames(int frames) {
        this.teleportMaxBatchFrames = positive(frames, "teleportMaxBatchFrames");
        return self();
    }

    /** Teleport: a batch of responses leaves once it holds this many bytes (before compression). Default 64 KiB. */
    public B teleportMaxBatchBytes(int bytes) {
        this.teleportMaxBatchBytes = positive(bytes, "teleportMaxBatchBytes");
        return self();
    }

    /**
     * How long the loop waits for an off-loop handler (blocking or {@link Response#async()}) to
     * complete, or, once it streams, for its next piece of body; then it answers {@code 503} (or,
     * if a streamed response has begun, closes the connection). Default 30 s.
     */
    public B asyncTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("asyncTimeout must be positive: " + timeout);
        }
        this.asyncTimeoutMillis = timeout.toMillis();
        return self();
    }

    /**
     * Request bodies with a Content-Length above this many bytes are streamed to blocking handlers
     * ({@link Request#bodyStream()}) and {@link Handlers#streaming} handlers as they arrive instead of
     * being held in memory; so are bodies without a length (HTTP/1.1 chunked, HTTP/2 without
     * {@code content-length}), whatever their size. Other inline handlers are not affected. Default 1 MiB.
     */
    public B streamBodyThreshold(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("streamBodyThreshold must not be negative: " + bytes);
        }
        this.streamBodyThreshold = bytes;
        return self();
    }

    /**
     * Largest request body streamed to a blocking or streaming handler (413 above it, answered from
     * the head; for a body without a length, once its running total passes it: the handler's body
     * stream then throws {@link RequestBodyException}, and over HTTP/1.1 the connection closes after
     * the answer). By default it is {@link #maxBodySize}, so the limit a client meets does not depend
     * on the kind of handler; raise it to take uploads larger than what is held in memory (a
     * streamed body is never held whole).
     */
    public B maxStreamedBodySize(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("maxStreamedBodySize must not be negative: " + bytes);
        }
        this.maxStreamedBodySize = bytes;
        return self();
    }

    /**
     * Requests answered from one read (a pipelined batch) before the socket must have taken their
     * responses: beyond it the connection stops parsing until the responses are written, so a
     * client that pipelines without reading costs at most this many responses. Default 256.
     */
    public B maxPipelinedRequests(int count) {
        this.maxPipelinedRequests = positive(count, "maxPipelinedRequests");
        return self();
    }

    /** Requests per connection; the last one's response says {@code Connection: close}. Default 0: no limit. */
    public B maxRequestsPerConnection(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("maxRequestsPerConnection must be >= 0: " + count);
        }
        this.maxRequestsPerConnection = count;
        return self();
    }

    /**
     * Open connections per listener, all loops together; accepting pauses at the limit. The HTTPS
     * port of {@link #https} counts its own connections against the same number. Default 100,000.
     */
    public B maxConnections(int count) {
        this.maxConnections = positive(count, "maxConnections");
        return self();
    }

    /** Time for a whole request head from its first byte (408 beyond: slowloris). Default 10 s. */
    public B headerTimeout(Duration timeout) {
        this.headerTimeoutMillis = millis(timeout, "headerTimeout");
        return self();
    }

    /** Time an incomplete body may go without a new byte (408 beyond). Default 30 s. */
    public B bodyTimeout(Duration timeout) {
        this.bodyTimeoutMillis = millis(timeout, "bodyTimeout");
        return self();
    }

    /** Time a keep-alive connection may wait for its next request (closed beyond). Default 60 s. */
    public B idleTimeout(Duration timeout) {
        this.idleTimeoutMillis = millis(timeout, "idleTimeout");
        return self();
    }

    /** Time pending output may go without the peer taking any of it (closed beyond). Default 30 s. */
    public B writeTimeout(Duration timeout) {
        this.writeTimeoutMillis = millis(timeout, "writeTimeout");
        return self();
    }

    /** Time a closing connection waits for the peer's FIN after ours (closed beyond). Default 2 s. */
    public B drainTimeout(Duration timeout) {
        this.drainTimeoutMillis = millis(timeout, "drainTimeout");
        return self();
    }

    // ---- ops (issue 13): maximum connection age, as in gRPC's A9 proposal ----

    /**
     * How long a connection may live, so that keep-alive clients behind an L4 load balancer spread
     * over new instances after a scale-out: the first response after that age says
     * {@code Connection: close}, and a connection still idle {@link #maxConnectionAgeGrace} later is
     * closed. Each connection's age is varied by {@link #maxConnectionAgeJitter} so that connections
     * opened together do not close together. {@link Duration#ZERO} (the default) turns it off and it
     * then costs nothing.
     */
    public B maxConnectionAge(Duration age) {
        if (age.isNegative()) {
            throw new IllegalArgumentException("maxConnectionAge must not be negative: " + age);
        }
        this.maxConnectionAgeMillis = age.isZero() ? 0 : Math.max(1, age.toMillis());
        return self();
    }

    /**
     * How long a connection past {@link #maxConnectionAge} may stay idle before it is closed (one
     * that is answering closes after its response instead). Default 10 s.
     */
    public B maxConnectionAgeGrace(Duration grace) {
        if (grace.isNegative()) {
            throw new IllegalArgumentException("maxConnectionAgeGrace must not be negative: " + grace);
        }
        this.maxConnectionAgeGraceMillis = grace.toMillis();
        return self();
    }

    /** Random variation of each connection's {@link #maxConnectionAge}, plus or minus this percent: 0..50. Default 10. */
    public B maxConnectionAgeJitter(int percent) {
        if (percent < 0 || percent > 50) {
            throw new IllegalArgumentException("maxConnectionAgeJitter must be 0..50 (percent): " + percent);
        }
        this.maxConnectionAgeJitter = percent;
        return self();
    }

    /**
     * Keeps request-duration histograms per route, method and status ({@code http.server.request.duration},
     * OpenTelemetry's names and default buckets), exposed by the metrics endpoint and the Micrometer
     * binder. Costs two clock reads and a few increments per request on the loop, no allocation, no lock;
     * off (the default) one null test. Default false.
     */
    public B requestDurations(boolean on) {
        this.requestDurations = on;
        return self();
    }

    /**
     * How long a request may take, from dispatch to its response encoded, before a JFR recording that
     * enables {@code dev.peregrine.SlowHandler} gets an event for it (see {@code jfr.PeregrineEvents});
     * nothing is measured for it while no recording asks. Default 1 s.
     */
    public B slowHandlerThreshold(Duration threshold) {
        if (threshold.isNegative()) {
            throw new IllegalArgumentException("slowHandlerThreshold must not be negative: " + threshold);
        }
        this.slowHandlerThresholdMillis = threshold.toMillis();
        return self();
    }

    /**
     * Gives every routed request an id: the client's {@code X-Request-Id} when valid (1 to 128
     * letters, digits or {@code - _ . : + / = @}), else a new one (a random prefix per loop and
     * a counter: see {@link dev.peregrine.web.RequestIds}). The id is {@code req.requestId()},
     * goes back in the response's {@code X-Request-Id} (also for the router's own answers, errors
     * and timeouts) and into the {@link #accessLog access log}. Off by default: then nothing is
     * done or allocated. Requests the parser rejects get none.
     */
    public B requestIds(boolean on) {
        this.requestIds = on;
        return self();
    }

    /**
     * Writes one line per answered request to {@code log} (combined or JSON lines, from a writer
     * thread: see {@link dev.peregrine.web.AccessLog}); {@code null} turns it off (the default).
     * The server starts the log's writer at {@link Server.Builder#start()} and closes it at {@link Server#close()}.
     */
    public B accessLog(dev.peregrine.web.AccessLog log) {
        this.accessLog = log;
        return self();
    }

    /**
     * How long a blocking handler may take to produce its response (like fasthttp's
     * {@code TimeoutHandler}): past it, the server answers 503 for it (one WARNING naming the
     * request), discards what the handler writes later, and interrupts its thread so that a
     * blocking call it waits in can end; the connection carries on. Progress of a streamed request
     * body restarts the clock; once a streamed response has begun, {@code asyncTimeout} bounds the
     * silence between its chunks. A route may have its own ({@link Server.Builder#route(String, String, Duration, Handler)}).
     * {@link Duration#ZERO} (the default): only {@link #asyncTimeout} bounds blocking handlers (it
     * answers 503 and interrupts too).
     */
    public B blockingTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("blockingTimeout must not be negative: " + timeout);
        }
        this.blockingTimeoutMillis = timeout.isZero() ? 0 : Math.max(1, timeout.toMillis());
        return self();
    }

    // ---- listeners and protocols ----

    /**
     * Also serves the routes over TLS on {@code port} (0 picks a free one, see
     * {@link Server#httpsPort()}), with the certificates and settings of {@code tls}. The HTTPS
     * listener runs its own loops (as many as {@link #threads}), see {@link Server}.
     */
    public B https(int port, TlsConfig tls) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        this.httpsPort = port;
        this.tlsConfig = java.util.Objects.requireNonNull(tls, "tls");
        this.tlsOnMainPort = false;
        return self();
    }

    /**
     * Also serves the routes over teleport (docs/teleport.md: HTTP/1.1 messages multiplexed by id
     * on one connection between Peregrine peers) on {@code port} (0 picks a free one, see
     * {@link Server#teleportPort()}; -1 serves none), with loops of its own as {@link #https} has.
     * Needs the {@code peregrine-teleport} module; without it this throws {@link IllegalStateException}.
     */
    public B teleport(int port) {
        if (port < -1 || port > 65535) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        if (port >= 0) {
            ServerEngine.get().requireListener("teleport");
        }
        this.teleportPort = port;
        this.teleportTls = null;
        return self();
    }

    /**
     * As {@link #teleport(int)}, over TLS from the first byte with the certificates of {@code tls},
     * chosen by ALPN {@code peregrine-tp/1} (docs/teleport.md). Compression is then up to each client
     * (off by default; see the document for the CRIME-style risk).
     */
    public B teleport(int port, TlsConfig tls) {
        if (port < 0) {
            throw new IllegalArgumentException("port out of range: " + port);
        }
        teleport(port);
        this.teleportTls = java.util.Objects.requireNonNull(tls, "tls");
        return self();
    }

    /**
     * Makes the main {@link #port} speak TLS instead of plain HTTP: an HTTPS-only server with one
     * set of loops. Replaces an earlier {@link #https} setting.
     */
    public B tls(TlsConfig tls) {
        this.tlsConfig = java.util.Objects.requireNonNull(tls, "tls");
        this.tlsOnMainPort = true;
        this.httpsPort = -1;
        return self();
    }

    /**
     * With {@code true}, the server also speaks HTTP/2 (see docs/http2.md): by prior knowledge on
     * the plain port, through ALPN {@code h2} on TLS ports (preferred over {@code http/1.1}), and
     * through {@code Upgrade: h2c}. Streams reach the same routes and filters; inline, blocking
     * and {@code async()} handlers answer over HTTP/2, files, several ranges, {@code res.stream} and
     * {@code res.outputStream} too; a request body in pieces (streaming routes) refuses the stream with
     * HTTP_1_1_REQUIRED so clients retry over HTTP/1.1. Default true ({@code false}: HTTP/1.1 only).
     */
    public B http2(boolean on) {
        this.http2 = on;
        return self();
    }

    /**
     * Speaks HTTP/2 as {@link #http2(boolean) http2(true)} does, with {@code options}' limits
     * instead of the defaults ({@link Http2Options#DEFAULTS}).
     */
    public B http2(Http2Options options) {
        if (options == null) {
            throw new NullPointerException("options");
        }
        this.http2 = true;
        this.http2Options = options;
        return self();
    }

    // ---- ops (issue 13): load-balancer settings, kept together ----

    /**
     * Expects the PROXY protocol header (HAProxy's, v1 or v2) at the start of every connection to
     * the main {@link #port} (plain, or TLS with {@link #tls}), from the peers {@code proxy} trusts;
     * the header's client becomes {@code req.remoteAddress()}. Other peers and malformed headers
     * are closed (one DEBUG line, counted in the metrics); under TLS the header precedes the
     * handshake. {@code null} turns it off (the default). The second HTTPS port of {@link #https}
     * is a listener of its own: see {@link #httpsProxyProtocol}.
     */
    public B proxyProtocol(dev.peregrine.proxy.ProxyProtocol proxy) {
        this.proxyProtocol = proxy;
        return self();
    }

    /**
     * The same as {@link #proxyProtocol} for the second HTTPS port of {@link #https}, which may
     * sit behind a different balancer than the main port (or none). {@code null}: off (the default).
     */
    public B httpsProxyProtocol(dev.peregrine.proxy.ProxyProtocol proxy) {
        this.httpsProxyProtocol = proxy;
        return self();
    }

    /**
     * How long one inline handler call may hold its event loop before one WARNING (rate-limited,
     * with the route and the loop's stack) says so; {@link Duration#ZERO} turns the check off.
     * The check is a watchdog thread: it costs the loop two opaque stores per handler call.
     * Default 100 ms.
     */
    public B blockedLoopWarning(Duration threshold) {
        if (threshold.isNegative()) {
            throw new IllegalArgumentException("blockedLoopWarning must not be negative: " + threshold);
        }
        this.blockedLoopWarningMillis = threshold.toMillis();
        return self();
    }

    /**
     * Reports a loop that inline handlers held for more than {@code percent} of {@code interval},
     * however short each call was (fifty 20 ms calls a second hold a loop as long as one of a
     * second, and no single call reaches {@link #blockedLoopWarning}): one WARNING naming the routes
     * that held it and their shares, at most once per 10 s per loop, counted in
     * {@code peregrine.busy_loop.warnings}. The watchdog samples which handler each loop runs (the
     * same two opaque stores per call as {@link #blockedLoopWarning}; no clock read on the loop), 50
     * times per interval. {@code percent} 0 turns it off. Default 50% of 1 s.
     */
    public B busyLoopWarning(int percent, Duration interval) {
        if (percent < 0 || percent > 100) {
            throw new IllegalArgumentException("busyLoopWarning percent must be 0..100: " + percent);
        }
        if (interval.toMillis() < 50) {
            throw new IllegalArgumentException("busyLoopWarning interval must be at least 50 ms: " + interval);
        }
        this.busyLoopPercent = percent;
        this.busyLoopIntervalMillis = interval.toMillis();
        return self();
    }
}
