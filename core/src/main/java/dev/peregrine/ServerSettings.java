package dev.peregrine;

import java.time.Duration;

/**
 * The scalar settings of {@link Server.Builder}: address, loop count, transport, limits, buffers
 * and timeouts, each with its default and its check (an out-of-range value throws at the call). The
 * builder inherits them; routes, TLS, protocols and the operations endpoints stay in the builder.
 * {@link ServerConfig} reads these fields when the server starts, and {@link Settings} fills them
 * from {@code peregrine.*} properties and {@code PEREGRINE_*} variables.
 *
 * @param <B> the builder type the setters return
 */
abstract class ServerSettings<B extends ServerSettings<B>> {
    String host = "0.0.0.0";
    int port = 8080;
    int threads = Runtime.getRuntime().availableProcessors();
    Transport transport;
    boolean reusePort = true;
    int ioUringRecvBuffers = dev.peregrine.loop.LoopConfig.DEFAULT_RECV_RING_BUFFERS;
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
     * as they arrive ({@link Request#bodyStream()}) instead of being held in memory. Inline
     * handlers are not affected. Default 1 MiB.
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
     * the head). By default it is {@link #maxBodySize}, so the limit a client meets does not depend
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
     * port of {@link Server.Builder#https} counts its own connections against the same number. Default 100,000.
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

    static long millis(Duration d, String what) {
        long ms = d.toMillis();
        if (ms <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + d);
        }
        return ms;
    }

    static int positive(int v, String what) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive: " + v);
        }
        return v;
    }
}
