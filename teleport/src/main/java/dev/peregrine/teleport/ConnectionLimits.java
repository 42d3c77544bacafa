package dev.peregrine.teleport;

import dev.peregrine.ServerConfig;
import dev.peregrine.server.ConnectionAge;

/**
 * The server's {@code maxRequestsPerConnection} and {@code maxConnectionAge} (with its jitter) for one
 * teleport connection. HTTP/1.1 retires a connection with {@code Connection: close} on a response;
 * teleport has GOAWAY for it, which lets the requests in flight finish and tells the client which of
 * those it sent were not taken (docs/teleport.md, "Retiring a connection").
 * <pre>
 *   handshake: requestsLeft = maxRequestsPerConnection (or -1), agedAt = now + age +- jitter
 *   each REQUEST taken: --requestsLeft == 0, or the loop clock past agedAt --&gt; GOAWAY (its id)
 *   idle (nothing in flight): the idle timer fires at agedAt at the latest  --&gt; GOAWAY
 * </pre>
 * Nothing here allocates after the handshake. Thread: the owning loop.
 */
final class ConnectionLimits {
    private final ServerConfig config;
    /** Requests the connection may still take; -1 for no limit. */
    private int requestsLeft;
    /** When the connection is aged (ms, loop clock), or {@link ConnectionAge#NEVER}. */
    private long agedAt = ConnectionAge.NEVER;

    ConnectionLimits(ServerConfig config) {
        this.config = config;
    }

    /** The connection's handshake is done: its budget and age start. */
    void start() {
        int max = config.maxRequestsPerConnection();
        requestsLeft = max > 0 ? max : -1;
        agedAt = ConnectionAge.agedAt(config);
    }

    /** A REQUEST was taken at {@code nowMillis}: true when it is the last (GOAWAY follows). */
    boolean taken(long nowMillis) {
        return (requestsLeft > 0 && --requestsLeft == 0) || nowMillis >= agedAt;
    }

    /** Whether the connection is past its age at {@code nowMillis}. */
    boolean aged(long nowMillis) {
        return nowMillis >= agedAt;
    }

    /** The idle timeout of an idle phase starting at {@code nowMillis}: the setting's, or less, to fire at the age. */
    long idleMillis(long nowMillis) {
        long idle = config.idleTimeoutMillis();
        return agedAt == ConnectionAge.NEVER ? idle : Math.max(0, Math.min(idle, agedAt - nowMillis));
    }
}
