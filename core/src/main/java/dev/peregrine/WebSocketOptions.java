package dev.peregrine;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * A WebSocket route's settings. Immutable: each {@code with...} returns a copy. Thread: any.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>past it</th></tr>
 *   <tr><td>{@code maxFrameSize}</td><td>1 MiB</td><td>close 1009</td></tr>
 *   <tr><td>{@code maxMessageSize} (after inflation)</td><td>1 MiB</td><td>close 1009</td></tr>
 *   <tr><td>{@code idleTimeout}</td><td>5 min</td><td>close 1001 (no traffic either way)</td></tr>
 *   <tr><td>{@code pingInterval}</td><td>0 (off)</td><td>a ping after that long without traffic; no answer in
 *       another interval: close 1001 (replaces the idle timeout)</td></tr>
 *   <tr><td>{@code closeTimeout}</td><td>5 s</td><td>the peer did not answer our close: the connection ends</td></tr>
 *   <tr><td>{@code compression}</td><td>on</td><td>permessage-deflate offered by a client is accepted
 *       (what {@code java.util.zip} can honour, see docs/websocket.md)</td></tr>
 *   <tr><td>{@code compressionThreshold}</td><td>64 bytes</td><td>smaller messages leave uncompressed</td></tr>
 *   <tr><td>{@code subprotocols}</td><td>none</td><td>the first of these (server order) the client offers is chosen</td></tr>
 *   <tr><td>{@code originCheck}</td><td>any origin</td><td>a refused {@code Origin} gets 403</td></tr>
 *   <tr><td>{@code execution}</td><td>LOOP</td><td>BLOCKING: callbacks off the loop, in order per connection</td></tr>
 * </table>
 */
public final class WebSocketOptions {
    public static final WebSocketOptions DEFAULTS = new WebSocketOptions(1 << 20, 1 << 20, 300_000, 0, 5_000,
            true, 64, List.of(), origin -> true, Execution.LOOP);

    private final int maxFrameSize;
    private final int maxMessageSize;
    private final long idleTimeoutMillis;
    private final long pingIntervalMillis;
    private final long closeTimeoutMillis;
    private final boolean compression;
    private final int compressionThreshold;
    private final List<String> subprotocols;
    private final Predicate<String> originCheck;
    private final Execution execution;

    private WebSocketOptions(int maxFrameSize, int maxMessageSize, long idleTimeoutMillis, long pingIntervalMillis,
                             long closeTimeoutMillis, boolean compression, int compressionThreshold,
                             List<String> subprotocols, Predicate<String> originCheck, Execution execution) {
        this.maxFrameSize = maxFrameSize;
        this.maxMessageSize = maxMessageSize;
        this.idleTimeoutMillis = idleTimeoutMillis;
        this.pingIntervalMillis = pingIntervalMillis;
        this.closeTimeoutMillis = closeTimeoutMillis;
        this.compression = compression;
        this.compressionThreshold = compressionThreshold;
        this.subprotocols = subprotocols;
        this.originCheck = originCheck;
        this.execution = execution;
    }

    private static int positive(int v, String name) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be positive: " + v);
        }
        return v;
    }

    private static long millis(Duration d, String name, boolean zeroAllowed) {
        long ms = d.toMillis();
        if (ms < 0 || (ms == 0 && !zeroAllowed)) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
        return ms;
    }

    /** Largest frame payload accepted, in bytes. */
    public WebSocketOptions maxFrameSize(int bytes) {
        return new WebSocketOptions(positive(bytes, "maxFrameSize"), maxMessageSize, idleTimeoutMillis, pingIntervalMillis,
                closeTimeoutMillis, compression, compressionThreshold, subprotocols, originCheck, execution);
    }

    /** Largest message accepted (all fragments, after inflation), in bytes. */
    public WebSocketOptions maxMessageSize(int bytes) {
        return new WebSocketOptions(maxFrameSize, positive(bytes, "maxMessageSize"), idleTimeoutMillis, pingIntervalMillis,
                closeTimeoutMillis, compression, compressionThreshold, subprotocols, originCheck, execution);
    }

    public WebSocketOptions idleTimeout(Duration d) {
        return new WebSocketOptions(maxFrameSize, maxMessageSize, millis(d, "idleTimeout", false), pingIntervalMillis,
                closeTimeoutMillis, compression, compressionThreshold, subprotocols, originCheck, execution);
    }

    /** A keep-alive ping after this long without traffic; {@code Duration.ZERO} turns it off. */
    public WebSocketOptions pingInterval(Duration d) {
        return new WebSocketOptions(maxFrameSize, maxMessageSize, idleTimeoutMillis, millis(d, "pingInterval", true),
                closeTimeoutMillis, compression, compressionThreshold, subprotocols, originCheck, execution);
    }

    public WebSocketOptions closeTimeout(Duration d) {
        return new WebSocketOptions(maxFrameSize, maxMessageSize, idleTimeoutMillis, pingIntervalMillis,
                millis(d, "closeTimeout", false), compression, compressionThreshold, subprotocols, originCheck, execution);
    }

    /** Whether permessage-deflate is accepted when a client offers it. */
    public WebSocketOptions compression(boolean on) {
        return new WebSocketOptions(maxFrameSize, maxMessageSize, idleTimeoutMillis, pingIntervalMillis,
                closeTimeoutMillis, on, compressionThreshold, subprotocols, originCheck, execution);
    }

    /** Messages shorter than this many bytes are sent uncompressed. */
    public WebSocketOptions compressionThreshold(int bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("compressionThreshold must not be negative: " + bytes);
        }
        return new WebSocketOptions(maxFrameSize, maxMessageSize, idleTimeoutMillis, pingIntervalMillis,
                closeTimeoutMillis, compression, bytes, subprotocols, originCheck, execution);
    }

    /** Subprotocols the server speaks, preferred first (RFC 6455 §4.2.2). */
    public WebSocketOptions subprotocols(String... names) {
        return new WebSocketOptions(maxFrameSize, maxMessageSize, idleTimeoutMillis, pingIntervalMillis,
                closeTimeoutMillis, compression, compressionThreshold, List.of(names), originCheck, execution);
    }

    /**
     * Decides on the handshake's {@code Origin} (null when absent, as from non-browser clients):
     * false answers 403 (RFC 6455 §4.2.2 and §10.2).
     */
    public WebSocketOptions originCheck(Predicate<String> check) {
        return new WebSocketOptions(maxFrameSize, maxMessageSize, idleTimeoutMillis, pingIntervalMillis,
                closeTimeoutMillis, compression, compressionThreshold, subprotocols, Objects.requireNonNull(check, "check"), execution);
    }

    /**
     * Where the route's callbacks run. {@link Execution#LOOP} (the default): on the
     * connection's event loop, and they must not block. {@link Execution#BLOCKING}: off
     * the loop, on a virtual thread on JDK 21+ (found at run time) or the server's blocking pool
     * ({@code blockingPoolSize}) on 17-20, one at a time per connection and in order; they may block,
     * and each {@link dev.peregrine.websocket.Payload} they receive is a copy they may keep. While a connection's callbacks are
     * behind (16 events or 256 KiB of payload waiting), the server stops reading from that peer. A
     * server's setting: the client ({@code HttpClient.webSocket}) refuses BLOCKING at the call. See
     * docs/websocket.md "Blocking handlers".
     */
    public WebSocketOptions execution(Execution execution) {
        return new WebSocketOptions(maxFrameSize, maxMessageSize, idleTimeoutMillis, pingIntervalMillis,
                closeTimeoutMillis, compression, compressionThreshold, subprotocols, originCheck,
                Objects.requireNonNull(execution, "execution"));
    }

    public Execution execution() {
        return execution;
    }

    public int maxFrameSize() {
        return maxFrameSize;
    }

    public int maxMessageSize() {
        return maxMessageSize;
    }

    public long idleTimeoutMillis() {
        return idleTimeoutMillis;
    }

    public long pingIntervalMillis() {
        return pingIntervalMillis;
    }

    public long closeTimeoutMillis() {
        return closeTimeoutMillis;
    }

    public boolean compression() {
        return compression;
    }

    public int compressionThreshold() {
        return compressionThreshold;
    }

    public List<String> subprotocols() {
        return subprotocols;
    }

    public Predicate<String> originCheck() {
        return originCheck;
    }
}
