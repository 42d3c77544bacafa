package dev.peregrine.server;

import dev.peregrine.ServerConfig;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Maximum connection age, after gRPC's A9 proposal ("Server-side Connection Management"), for
 * HTTP/1.1: long-lived keep-alive connections are retired so that clients behind an L4 load balancer
 * (a Kubernetes Service, an NLB) reach instances added by a scale-out.
 * <pre>
 *   accepted ---- age (maxConnectionAge &plusmn; jitter %) ----&gt; aged ---- grace ----&gt; retired
 *                                                         |                    |
 *               the next response says Connection: close  +   idle now: closed +
 * </pre>
 * HTTP/1.1 has no GOAWAY, so an aged connection says so on its next response (RFC 9112 §9.6) and
 * closes after it; one that stays idle through the grace is closed (a client must be ready for an
 * idle keep-alive connection to close, RFC 9112 §9.5). The jitter spreads connections opened
 * together over 2 &times; jitter % of the age, so they do not all reconnect at once.
 *
 * <p>Teleport (module {@code peregrine-teleport}) has a GOAWAY: it retires its connections with that
 * instead, from the same deadline.
 *
 * <p>Costs nothing when off: the deadline is {@link Long#MAX_VALUE}, tested with one compare per
 * response and one per idle-timer arming. Nothing here allocates. Thread: the loop.
 */
public final class ConnectionAge {
    /** The deadline of a connection that never ages. */
    public static final long NEVER = Long.MAX_VALUE;

    private ConnectionAge() {
    }

    /**
     * When a connection accepted now is aged (ms since the epoch, compared with the loop clock), or
     * {@link #NEVER}. Reads the clock only when the age is set: the loop clock may be a sleep old.
     */
    public static long agedAt(ServerConfig config) {
        long age = config.maxConnectionAgeMillis();
        if (age <= 0) {
            return NEVER;
        }
        int jitter = config.maxConnectionAgeJitter();
        if (jitter > 0) {
            double f = ThreadLocalRandom.current().nextDouble(-jitter, jitter) / 100.0;
            age = Math.max(1, age + (long) (age * f));
        }
        return System.currentTimeMillis() + age;
    }

    /**
     * How long the idle phase that began at {@code sinceMillis} may last: the idle timeout, or less
     * when the connection is retired (its age and grace over) before that.
     */
    static long idleMillis(ServerConfig config, long agedAt, long sinceMillis) {
        long idle = config.idleTimeoutMillis();
        if (agedAt == NEVER) {
            return idle;
        }
        return Math.max(0, Math.min(idle, agedAt + config.maxConnectionAgeGraceMillis() - sinceMillis));
    }
}
