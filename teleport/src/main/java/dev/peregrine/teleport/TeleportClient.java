package dev.peregrine.teleport;

import dev.peregrine.Transport;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.client.ClientResponse;
import dev.peregrine.client.HttpSender;
import dev.peregrine.client.ResponseCallback;
import dev.peregrine.client.ReusableResponse;
import dev.peregrine.client.internal.ReuseAccess;
import dev.peregrine.loop.LoopConfig;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.TransportServer;
import dev.peregrine.transport.choice.TransportChoice;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A client of one teleport server ({@code Server.builder().teleport(port)}, docs/teleport.md): an
 * {@link HttpSender}, so a {@code BalancingClient} mixes it with HTTP upstreams. It runs loops of its
 * own ({@link LoopSetup#outbound}) with {@code connections} {@link TeleportChannel}s spread over them;
 * a call goes to the channel with the fewest calls under way, hops to its loop, and leaves in that
 * channel's next batch as a REQUEST frame (its request encoded as HTTP/1.1, as {@code HttpClient}
 * would write it); the RESPONSE with its id answers it.
 * <pre>{@code
 * TeleportClient tp = TeleportClient.builder("10.0.0.1", 9000).connections(2).timeout(Duration.ofSeconds(3)).build();
 * ClientResponse r = tp.execute(ClientRequest.get("http://service/plaintext")); // host from the request, path and query sent
 * }</pre>
 * Failures are {@link ClientException}s: CONNECT (down, refused, bad handshake; reconnecting with
 * backoff), POOL (the in-flight cap is reached), READ (no response within {@code timeout}: a CANCEL
 * is sent), RESPONSE (bad input: the connection closes and its calls fail), CLOSED, SHUTDOWN.
 * Bodies are in memory: a request with a streamed body is refused at {@link #send}. The reuse path,
 * {@link #send(ClientRequest, ReusableResponse, ResponseCallback)}, allocates nothing per call once warm.
 *
 * <p>Thread: any.
 */
public final class TeleportClient implements HttpSender, AutoCloseable {
    final long timeoutMillis;
    final long connectTimeoutMillis;
    final int maxInFlight;
    final int maxFrame;
    final int maxHeadSize = 64 * 1024;
    final long maxBodySize;
    final long pingIntervalMillis;
    final long maxBatchDelayMillis;
    final int maxBatchFrames;
    final int maxBatchBytes;
    final TeleportCompression compression;
    /** TLS from the first byte (ALPN peregrine-tp/1), or null. */
    final dev.peregrine.loop.EndpointLayer tls;
    private final TransportServer loops;
    private final TeleportChannel[] channels;
    private static final ReuseAccess.Operations REUSE = ReuseAccess.get();
    private volatile boolean closed;

    private TeleportClient(Builder b) {
        this.timeoutMillis = b.timeout.toMillis();
        this.connectTimeoutMillis = b.connectTimeout.toMillis();
        this.maxInFlight = b.maxInFlight;
        this.maxBodySize = b.maxBodySize;
        this.maxFrame = (int) Math.max(Handshake.MIN_FRAME, Math.min(Handshake.MAX_FRAME, maxHeadSize * 2L + maxBodySize));
        this.pingIntervalMillis = b.pingInterval.toMillis();
        this.maxBatchDelayMillis = b.maxBatchDelay.toMillis();
        this.maxBatchFrames = b.maxBatchFrames;
        this.maxBatchBytes = b.maxBatchBytes;
        this.compression = b.compression;
        this.tls = b.sslContext == null ? null : new dev.peregrine.tls.engine.TlsClientLayer(b.sslContext,
                b.address.getHostString(), b.address.getPort(), List.of(dev.peregrine.server.AddedListener.TELEPORT_ALPN),
                b.verifyHostname, connectTimeoutMillis);
        LoopConfig config = LoopConfig.builder().threads(b.threads)
                .largestPooledBuffer(maxFrame + Frame.HEADER + LoopConfig.DEFAULT_BUFFER_SIZE).build();
        TransportEngine engine = TransportChoice.select(b.transport);
        try {
            this.loops = engine.startLoops(LoopSetup.outbound(config), b.threads);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the teleport client's loops", e);
        }
        List<LoopContext> ctxs = loops.loops();
        channels = new TeleportChannel[b.connections];
        for (int i = 0; i < channels.length; i++) {
            TeleportChannel ch = new TeleportChannel(this, ctxs.get(i % ctxs.size()), b.address);
            channels[i] = ch;
            ch.loop.eventLoop().execute(ch::connect);
        }
    }

    /** A builder for a client of the teleport server at {@code host:port} (the name is looked up now). */
    public static Builder builder(String host, int port) {
        return new Builder(new InetSocketAddress(host, port));
    }

    @Override
    public CompletableFuture<ClientResponse> send(ClientRequest request) {
        checkBody(request);
        CompletableFuture<ClientResponse> future = new CompletableFuture<>();
        TeleportChannel ch = pick();
        boolean onLoop = ch.loop.eventLoop().inEventLoop();
        dispatch(ch, ch.calls.acquire(onLoop, request, future, null, null), onLoop);
        return future; // not call.future: once handed over, the call may be answered and recycled
    }

    /**
     * Sends {@code request}, fills {@code response} in place from the RESPONSE frame (the same
     * {@code ResponseReader} the HTTP/1.1 client reads with) and calls {@code callback} on the channel's
     * loop, allocating nothing once warm: the call object is recycled, its id table has {@code int}
     * keys, and a call made on that loop (from a callback) stays on it without a task.
     *
     * @throws IllegalStateException when {@code response} is still in a call
     * @throws IllegalArgumentException when {@code response} or {@code callback} is null, or the body is streamed
     */
    @Override
    public void send(ClientRequest request, ReusableResponse response, ResponseCallback callback) {
        if (response == null || callback == null) {
            throw new IllegalArgumentException("response and callback must not be null");
        }
        checkBody(request);
        REUSE.claim(response);
        TeleportChannel ch = pick();
        boolean onLoop = ch.loop.eventLoop().inEventLoop(); // asked once per send: twice was 16% of a sending thread's samples
        dispatch(ch, ch.calls.acquire(onLoop, request, null, response, callback), onLoop);
    }

    private static void checkBody(ClientRequest request) {
        if (request.producer() != null) {
            throw new IllegalArgumentException("teleport carries bodies in memory: a streamed request body cannot be sent");
        }
    }

    private void dispatch(TeleportChannel ch, TeleportCall call, boolean onLoop) {
        if (closed) {
            call.fail(ClientException.Phase.SHUTDOWN, "teleport client closed");
        } else if (onLoop) {
            ch.send(call);
        } else if (!ch.inbox.offer(call)) {
            ch.loop.eventLoop().execute(call); // the inbox is full: the call is its own task
        }
    }

    /** The channel with the fewest calls under way (a racy hint; ties to the first). */
    private TeleportChannel pick() {
        TeleportChannel best = channels[0];
        for (int i = 1; i < channels.length; i++) {
            if (channels[i].load < best.load) {
                best = channels[i];
            }
        }
        return best;
    }

    /** Batches written so far, all connections (each one socket write; a test's measure). */
    public long batches() {
        long n = 0;
        for (TeleportChannel ch : channels) {
            n += ch.batches;
        }
        return n;
    }

    /** REQUEST frames written so far, all connections. */
    public long framesSent() {
        long n = 0;
        for (TeleportChannel ch : channels) {
            n += ch.framesSent;
        }
        return n;
    }

    /** Fails calls under way (SHUTDOWN), closes the connections and stops the loops. Thread: not a loop of this client. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (TeleportChannel ch : channels) {
            ch.loop.eventLoop().execute(ch::close);
        }
        loops.close(1_000);
    }

    public static final class Builder {
        private final InetSocketAddress address;
        private int connections = 1;
        private int threads = 1;
        private Transport transport = Transport.AUTO;
        private Duration timeout = Duration.ofSeconds(3);
        private Duration connectTimeout = Duration.ofSeconds(3);
        private int maxInFlight = 1024;
        private long maxBodySize = 64L << 20;
        private Duration pingInterval = Duration.ofSeconds(15);
        private Duration maxBatchDelay = Duration.ZERO;
        private int maxBatchFrames = 1024;
        private int maxBatchBytes = 64 * 1024;
        private TeleportCompression compression = TeleportCompression.NONE;
        private javax.net.ssl.SSLContext sslContext;
        private boolean verifyHostname = true;

        private Builder(InetSocketAddress address) {
            if (address.isUnresolved()) {
                throw new IllegalArgumentException("cannot resolve " + address.getHostString());
            }
            this.address = address;
        }

        /** Connections to the server (default 1), spread over the loops. */
        public Builder connections(int n) {
            this.connections = positive(n, "connections");
            return this;
        }

        /** Loops (default 1). */
        public Builder threads(int n) {
            this.threads = positive(n, "threads");
            return this;
        }

        public Builder transport(Transport t) {
            this.transport = java.util.Objects.requireNonNull(t, "transport");
            return this;
        }

        /** How long a call waits for its response (default 3 s): then READ, and a CANCEL to the server. */
        public Builder timeout(Duration d) {
            this.timeout = positive(d, "timeout");
            return this;
        }

        public Builder connectTimeout(Duration d) {
            this.connectTimeout = positive(d, "connectTimeout");
            return this;
        }

        /** Calls in flight per connection (default 1024; the server's own cap may be lower); beyond: POOL. */
        public Builder maxInFlight(int n) {
            this.maxInFlight = positive(n, "maxInFlight");
            return this;
        }

        /** Largest response body (default 64 MiB): it bounds the frames this client accepts. */
        public Builder maxBodySize(long bytes) {
            if (bytes < 0 || bytes > Handshake.MAX_FRAME) {
                throw new IllegalArgumentException("maxBodySize out of range: " + bytes);
            }
            this.maxBodySize = bytes;
            return this;
        }

        /** How long a connection stays silent before a PING (default 15 s); no answer by the next: closed. */
        public Builder pingInterval(Duration d) {
            this.pingInterval = positive(d, "pingInterval");
            return this;
        }

        /**
         * How long a call may wait for others to share its write (default 0: the batch leaves once the
         * calls already handed to the loop are queued). Whole milliseconds; a batch leaves this long after
         * its first call, plus the loop's latency (not rounded to the loop's 10 ms timer tick).
         */
        public Builder maxBatchDelay(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("maxBatchDelay must not be negative");
            }
            this.maxBatchDelay = d;
            return this;
        }

        /** A batch leaves once it holds this many frames (default 1024). */
        public Builder maxBatchFrames(int n) {
            this.maxBatchFrames = positive(n, "maxBatchFrames");
            return this;
        }

        /** A batch leaves once it holds this many bytes (default 64 KiB). */
        public Builder maxBatchBytes(int n) {
            this.maxBatchBytes = positive(n, "maxBatchBytes");
            return this;
        }

        /**
         * What this client writes (default {@link TeleportCompression#NONE}); the server then writes the
         * same. {@link TeleportCompression#DEFLATE}: one raw DEFLATE stream per direction, sync-flushed
         * per batch; {@link TeleportCompression#LZ4}: one LZ4 block per batch (lz4-java's native code,
         * or its safe Java code where that does not load). Over TLS compression exposes secrets to
         * CRIME-style attacks (docs/teleport.md).
         */
        public Builder compression(TeleportCompression c) {
            this.compression = java.util.Objects.requireNonNull(c, "compression");
            return this;
        }

        /**
         * Teleport over TLS ({@code Server.Builder.teleport(port, tls)}): from the first byte, ALPN
         * {@code peregrine-tp/1}, the server's certificate checked against {@code ctx}'s trust and the
         * host name. Compression stays off unless {@link #compression} asks for it (docs/teleport.md).
         */
        public Builder tls(javax.net.ssl.SSLContext ctx) {
            this.sslContext = java.util.Objects.requireNonNull(ctx, "ctx");
            return this;
        }

        /** Whether the certificate must name the host (default true; off only in tests). */
        public Builder verifyHostname(boolean on) {
            this.verifyHostname = on;
            return this;
        }

        public TeleportClient build() {
            return new TeleportClient(this);
        }

        private static int positive(int n, String what) {
            if (n < 1) {
                throw new IllegalArgumentException(what + " must be at least 1: " + n);
            }
            return n;
        }

        private static Duration positive(Duration d, String what) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive: " + d);
            }
            return d;
        }
    }
}
