package dev.peregrine.loop;

/**
 * What the connection layer and the transports read of the settings: how many loops, the sizes of
 * each loop's buffers, the output a connection may leave unsent, the two timeouts the connection owns
 * (write and drain), and, for loops with a listener, where and how to listen. A value of the connection
 * layer's own, so that loops start without a server: the server builds one from its settings
 * ({@code server/ServerSetup.loopConfig}), the client from its builder, and nothing in the process's
 * environment reaches it but through them. Immutable; the defaults are the server's.
 *
 * <p>Thread: any.
 */
public final class LoopConfig {
    /** The default size of a loop's read buffer and of its write buffer. */
    public static final int DEFAULT_BUFFER_SIZE = 64 * 1024;
    /** The default number of buffers in an io_uring loop's receive ring. */
    public static final int DEFAULT_RECV_RING_BUFFERS = 256;

    private final int threads;
    private final int readBufferSize;
    private final int writeBufferSize;
    private final int largestPooledBuffer;
    private final int maxPendingOutput;
    private final long writeTimeoutMillis;
    private final long drainTimeoutMillis;
    private final String host;
    private final int backlog;
    private final boolean reusePort;
    private final int maxConnections;
    private final int recvRingBuffers;

    private LoopConfig(Builder b) {
        threads = b.threads;
        readBufferSize = b.readBufferSize;
        writeBufferSize = b.writeBufferSize;
        largestPooledBuffer = b.largestPooledBuffer;
        maxPendingOutput = b.maxPendingOutput;
        writeTimeoutMillis = b.writeTimeoutMillis;
        drainTimeoutMillis = b.drainTimeoutMillis;
        host = b.host;
        backlog = b.backlog;
        reusePort = b.reusePort;
        maxConnections = b.maxConnections;
        recvRingBuffers = b.recvRingBuffers;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Number of loops. */
    public int threads() {
        return threads;
    }

    /** Size of each loop's read buffer, which every socket of the loop reads into. */
    public int readBufferSize() {
        return readBufferSize;
    }

    /** Size of each loop's write buffer, where a batch of output is put together. */
    public int writeBufferSize() {
        return writeBufferSize;
    }

    /** The largest buffer a loop's pool lends (input held across reads, output the socket refused). */
    public int largestPooledBuffer() {
        return largestPooledBuffer;
    }

    /** Unsent bytes per connection above which reading pauses. */
    public int maxPendingOutput() {
        return maxPendingOutput;
    }

    /** How long output may stay pending while the peer takes none of it, ms. */
    public long writeTimeoutMillis() {
        return writeTimeoutMillis;
    }

    /** How long the peer's input is discarded after our FIN, ms. */
    public long drainTimeoutMillis() {
        return drainTimeoutMillis;
    }

    /** Address a listener binds. */
    public String host() {
        return host;
    }

    /** Listen backlog per listening socket. */
    public int backlog() {
        return backlog;
    }

    /** Whether each loop of a listener gets its own socket on the port ({@code SO_REUSEPORT}). */
    public boolean reusePort() {
        return reusePort;
    }

    /** Open connections per listener, all loops together. */
    public int maxConnections() {
        return maxConnections;
    }

    /** Buffers in an io_uring loop's provided-buffer receive ring; 0: none (poll and recv). Other transports ignore it. */
    public int recvRingBuffers() {
        return recvRingBuffers;
    }

    /** Collects the values; checks each at its setter, so a mistake fails where it is made. */
    public static final class Builder {
        private int threads = Runtime.getRuntime().availableProcessors();
        private int readBufferSize = DEFAULT_BUFFER_SIZE;
        private int writeBufferSize = DEFAULT_BUFFER_SIZE;
        private int largestPooledBuffer = 16 * 1024 + 8 * 1024 * 1024 + DEFAULT_BUFFER_SIZE;
        private int maxPendingOutput = 1024 * 1024;
        private long writeTimeoutMillis = 30_000;
        private long drainTimeoutMillis = 2_000;
        private String host = "0.0.0.0";
        private int backlog = 1024;
        private boolean reusePort = true;
        private int maxConnections = 100_000;
        private int recvRingBuffers = DEFAULT_RECV_RING_BUFFERS;

        private Builder() {
        }

        public Builder threads(int n) {
            threads = positive("threads", n);
            return this;
        }

        public Builder readBufferSize(int bytes) {
            readBufferSize = positive("readBufferSize", bytes);
            return this;
        }

        public Builder writeBufferSize(int bytes) {
            writeBufferSize = positive("writeBufferSize", bytes);
            return this;
        }

        public Builder largestPooledBuffer(int bytes) {
            largestPooledBuffer = positive("largestPooledBuffer", bytes);
            return this;
        }

        public Builder maxPendingOutput(int bytes) {
            maxPendingOutput = positive("maxPendingOutput", bytes);
            return this;
        }

        public Builder writeTimeoutMillis(long ms) {
            writeTimeoutMillis = positive("writeTimeoutMillis", ms);
            return this;
        }

        public Builder drainTimeoutMillis(long ms) {
            drainTimeoutMillis = positive("drainTimeoutMillis", ms);
            return this;
        }

        public Builder host(String host) {
            if (host == null || host.isEmpty()) {
                throw new IllegalArgumentException("host must not be empty");
            }
            this.host = host;
            return this;
        }

        public Builder backlog(int n) {
            backlog = positive("backlog", n);
            return this;
        }

        public Builder reusePort(boolean on) {
            reusePort = on;
            return this;
        }

        public Builder maxConnections(int n) {
            maxConnections = positive("maxConnections", n);
            return this;
        }

        public Builder recvRingBuffers(int n) {
            if (n < 0 || n > 16384) {
                throw new IllegalArgumentException("recvRingBuffers must be 0..16384: " + n);
            }
            recvRingBuffers = n;
            return this;
        }

        public LoopConfig build() {
            return new LoopConfig(this);
        }

        private static int positive(String name, int v) {
            if (v <= 0) {
                throw new IllegalArgumentException(name + " must be > 0: " + v);
            }
            return v;
        }

        private static long positive(String name, long v) {
            if (v <= 0) {
                throw new IllegalArgumentException(name + " must be > 0: " + v);
            }
            return v;
        }
    }
}
