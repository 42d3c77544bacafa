package dev.peregrine;


/**
 * The settings of one server, fixed at {@link Server.Builder#start()}. Every limit has a default and a
 * builder setting; breaching one gives the status in the table and closes the connection.
 *
 * <table>
 *   <caption>limits</caption>
 *   <tr><th>setting</th><th>default</th><th>when breached</th></tr>
 *   <tr><td>{@code maxRequestLineLength}</td><td>8 KiB</td><td>414</td></tr>
 *   <tr><td>{@code maxHeadSize} (request line + fields; also the trailer limit)</td><td>16 KiB</td><td>431</td></tr>
 *   <tr><td>{@code maxHeaderCount}</td><td>100</td><td>431</td></tr>
 *   <tr><td>{@code maxBodySize} (after chunked decoding)</td><td>8 MiB</td><td>413, from the head when Content-Length says so</td></tr>
 *   <tr><td>{@code maxPendingOutput} (unsent bytes per connection)</td><td>1 MiB</td><td>reading pauses until it drains; a streaming writer blocks</td></tr>
 *   <tr><td>{@code maxStreamedBodySize} (body streamed to a blocking or streaming handler)</td><td>{@code maxBodySize}</td><td>413, from the head</td></tr>
 *   <tr><td>{@code asyncTimeout} (off-loop handler, or its stream, silent)</td><td>30 s</td><td>503, or close once a streamed response began</td></tr>
 *   <tr><td>{@code blockingTimeout} (a blocking handler's answer; per route too), builder only</td><td>0 (asyncTimeout)</td><td>503, the handler's thread interrupted</td></tr>
 *   <tr><td>{@code maxPipelinedRequests} (requests answered from one read before the socket must take
 *       their responses)</td><td>256</td><td>parsing pauses until the responses are written</td></tr>
 *   <tr><td>{@code maxRequestsPerConnection}</td><td>0 (unlimited)</td><td>the last response says
 *       {@code Connection: close}</td></tr>
 *   <tr><td>{@code maxConnections} (open connections per listener, all loops together)</td><td>100,000</td><td>accepting
 *       pauses (the kernel's backlog holds newcomers) and resumes when one closes</td></tr>
 *   <tr><td>{@code maxConnectionAge} (&plusmn; {@code maxConnectionAgeJitter} %, then {@code maxConnectionAgeGrace}
 *       while idle)</td><td>0 (unlimited)</td><td>the next response says {@code Connection: close}; an idle
 *       connection is closed once the grace is over too</td></tr>
 * </table>
 *
 * <table>
 *   <caption>timeouts (each connection waits for one thing at a time; one timer per connection)</caption>
 *   <tr><th>setting</th><th>default</th><th>runs while</th><th>when it expires</th></tr>
 *   <tr><td>{@code headerTimeout}</td><td>10 s</td><td>a request head is incomplete, from its first byte
 *       (not restarted by further bytes: slowloris)</td><td>408, close</td></tr>
 *   <tr><td>{@code bodyTimeout}</td><td>30 s</td><td>a body is incomplete and no byte of it arrives</td><td>408, close</td></tr>
 *   <tr><td>{@code idleTimeout}</td><td>60 s</td><td>no request is under way (also a fresh connection)</td><td>close silently</td></tr>
 *   <tr><td>{@code writeTimeout}</td><td>30 s</td><td>output is pending and the peer takes none of it</td><td>close</td></tr>
 *   <tr><td>{@code drainTimeout}</td><td>2 s</td><td>our FIN is sent and the peer's input is discarded</td><td>close</td></tr>
 * </table>
 */
public final class ServerConfig {
    private final String host;
    private final int port;
    private final int threads;
    private final Transport transport;
    private final boolean reusePort;
    private final int ioUringRecvBuffers;
    private final int backlog;
    private final int maxRequestLineLength;
    private final int maxHeadSize;
    private final int maxHeaderCount;
    private final long maxBodySize;
    private final int maxPendingOutput;
    private final int readBufferSize;
    private final int writeBufferSize;
    private final long shutdownGraceMillis;
    private final long asyncTimeoutMillis;
    private final long teleportMaxBatchDelayMillis;
    private final int teleportMaxBatchFrames;
    private final int teleportMaxBatchBytes;
    private final long streamBodyThreshold;
    private final long maxStreamedBodySize;
    private final int blockingPoolSize;
    private final int maxPipelinedRequests;
    private final int maxRequestsPerConnection;
    private final int maxConnections;
    private final long headerTimeoutMillis;
    private final long bodyTimeoutMillis;
    private final long idleTimeoutMillis;
    private final long writeTimeoutMillis;
    private final long drainTimeoutMillis;
    private final long maxConnectionAgeMillis;
    private final long maxConnectionAgeGraceMillis;
    private final int maxConnectionAgeJitter;
    private final boolean requestDurations;
    private final long slowHandlerThresholdNanos;
    private final ErrorPage errorPage;

    ServerConfig(Server.Builder b) {
        host = b.host;
        port = b.port;
        threads = b.threads;
        transport = b.transport;
        reusePort = b.reusePort;
        ioUringRecvBuffers = b.ioUringRecvBuffers;
        backlog = b.backlog;
        maxRequestLineLength = b.maxRequestLineLength;
        maxHeadSize = b.maxHeadSize;
        maxHeaderCount = b.maxHeaderCount;
        maxBodySize = b.maxBodySize;
        maxPendingOutput = b.maxPendingOutput;
        readBufferSize = b.readBufferSize;
        writeBufferSize = b.writeBufferSize;
        shutdownGraceMillis = b.shutdownGraceMillis;
        asyncTimeoutMillis = b.asyncTimeoutMillis;
        teleportMaxBatchDelayMillis = b.teleportMaxBatchDelayMillis;
        teleportMaxBatchFrames = b.teleportMaxBatchFrames;
        teleportMaxBatchBytes = b.teleportMaxBatchBytes;
        streamBodyThreshold = b.streamBodyThreshold;
        maxStreamedBodySize = b.maxStreamedBodySize < 0 ? b.maxBodySize : b.maxStreamedBodySize;
        blockingPoolSize = b.blockingPoolSize;
        maxPipelinedRequests = b.maxPipelinedRequests;
        maxRequestsPerConnection = b.maxRequestsPerConnection;
        maxConnections = b.maxConnections;
        headerTimeoutMillis = b.headerTimeoutMillis;
        bodyTimeoutMillis = b.bodyTimeoutMillis;
        idleTimeoutMillis = b.idleTimeoutMillis;
        writeTimeoutMillis = b.writeTimeoutMillis;
        drainTimeoutMillis = b.drainTimeoutMillis;
        maxConnectionAgeMillis = b.maxConnectionAgeMillis;
        maxConnectionAgeGraceMillis = b.maxConnectionAgeGraceMillis;
        maxConnectionAgeJitter = b.maxConnectionAgeJitter;
        requestDurations = b.requestDurations;
        slowHandlerThresholdNanos = b.slowHandlerThresholdMillis * 1_000_000;
        errorPage = b.errorPage;
    }

    /** The body of the server's own error answers ({@link Server.Builder#errorPage}), or null: the plain default. */
    public ErrorPage errorPage() {
        return errorPage;
    }

    /** Address to bind ({@code "0.0.0.0"} for all IPv4 interfaces). */
    public String host() {
        return host;
    }

    /** Port to bind; 0 picks a free one ({@link Server#port()} tells which). */
    public int port() {
        return port;
    }

    /** Number of event loops. */
    public int threads() {
        return threads;
    }

    /** The transport asked for (AUTO unless one was chosen); {@link Server#transport()} says which runs. */
    public Transport transport() {
        return transport;
    }

    /** Buffers of each io_uring loop's receive ring (0: none, poll and recv). */
    public int ioUringRecvBuffers() {
        return ioUringRecvBuffers;
    }

    /** Whether each loop binds its own socket with {@code SO_REUSEPORT} where supported. */
    public boolean reusePort() {
        return reusePort;
    }

    /** Listen backlog per listening socket. */
    public int backlog() {
        return backlog;
    }

    /** Longest request line, bytes. */
    public int maxRequestLineLength() {
        return maxRequestLineLength;
    }

    /** Longest request head, bytes. */
    public int maxHeadSize() {
        return maxHeadSize;
    }

    /** Most header fields per request. */
    public int maxHeaderCount() {
        return maxHeaderCount;
    }

    /** Largest request body, bytes. */
    public long maxBodySize() {
        return maxBodySize;
    }

    /** Unsent response bytes per connection above which the connection is not read. */
    public int maxPendingOutput() {
        return maxPendingOutput;
    }

    /** Size of each loop's read buffer, bytes. */
    public int readBufferSize() {
        return readBufferSize;
    }

    /** Size of each loop's write buffer, bytes. */
    public int writeBufferSize() {
        return writeBufferSize;
    }

    /** How long {@link Server#close()} lets responses being written finish, milliseconds. */
    public long shutdownGraceMillis() {
        return shutdownGraceMillis;
    }

    /** How long the loop waits for an off-loop handler, or its stream's next piece, milliseconds. */
    public long asyncTimeoutMillis() {
        return asyncTimeoutMillis;
    }

    /** Teleport: how long a response frame may wait for others to share its write (0: end of the loop turn). */
    public long teleportMaxBatchDelayMillis() {
        return teleportMaxBatchDelayMillis;
    }

    /** Teleport: frames after which a batch of responses leaves. */
    public int teleportMaxBatchFrames() {
        return teleportMaxBatchFrames;
    }

    /** Teleport: bytes (before compression) after which a batch of responses leaves. */
    public int teleportMaxBatchBytes() {
        return teleportMaxBatchBytes;
    }

    /** Content-Length above which a blocking or streaming handler's request body is streamed, bytes (one without a length always is). */
    public long streamBodyThreshold() {
        return streamBodyThreshold;
    }

    /** Largest body streamed to a blocking or streaming handler, bytes. */
    public long maxStreamedBodySize() {
        return maxStreamedBodySize;
    }

    /** Requests answered from one read before the socket must have taken their responses to go on. */
    public int maxPipelinedRequests() {
        return maxPipelinedRequests;
    }

    /** Requests served on one connection before it is closed; 0 for no limit. */
    public int maxRequestsPerConnection() {
        return maxRequestsPerConnection;
    }

    /** Open connections per listener (all loops together; an HTTPS port counts its own) above which accepting pauses. */
    public int maxConnections() {
        return maxConnections;
    }

    /** How long a request head may take from its first byte to its last, milliseconds. */
    public long headerTimeoutMillis() {
        return headerTimeoutMillis;
    }

    /** How long an incomplete body may go without a new byte, milliseconds. */
    public long bodyTimeoutMillis() {
        return bodyTimeoutMillis;
    }

    /** How long a connection may wait for its next request, milliseconds. */
    public long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }

    /** How long pending output may go without the peer taking any of it, milliseconds. */
    public long writeTimeoutMillis() {
        return writeTimeoutMillis;
    }

    /** How long a closing connection discards the peer's input after our FIN, milliseconds. */
    /** Platform threads for blocking handlers where virtual threads are not available (JDK 17-20). */
    public int blockingPoolSize() {
        return blockingPoolSize;
    }

    public long drainTimeoutMillis() {
        return drainTimeoutMillis;
    }

    /** How long a connection may live before its next response closes it, milliseconds; 0: no limit. */
    public long maxConnectionAgeMillis() {
        return maxConnectionAgeMillis;
    }

    /** How long a connection past its age may stay idle before it is closed, milliseconds. */
    public long maxConnectionAgeGraceMillis() {
        return maxConnectionAgeGraceMillis;
    }

    /** Random variation of each connection's age, plus or minus this percent. */
    public int maxConnectionAgeJitter() {
        return maxConnectionAgeJitter;
    }

    /** Whether request-duration histograms are kept ({@code http.server.request.duration}). */
    public boolean requestDurations() {
        return requestDurations;
    }

    /** Request duration from which a JFR {@code dev.peregrine.SlowHandler} event is emitted, nanoseconds. */
    public long slowHandlerThresholdNanos() {
        return slowHandlerThresholdNanos;
    }
}
