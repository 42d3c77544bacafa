package dev.peregrine.client;

import java.io.IOException;

/**
 * A request that did not get its response, naming the phase that failed and the host. Every failure
 * of a {@link HttpClient} call is one of these, never a bare exception from below.
 */
public final class ClientException extends IOException {
    /** Where the request failed. */
    /** The phase a response reader's failure of kind {@code f} reports. */
    static Phase phaseOf(dev.peregrine.http1.ResponseReader.Failure f) {
        switch (f) {
            case TOO_LARGE:
                return Phase.TOO_LARGE;
            case TRUNCATED:
                return Phase.CLOSED;
            default:
                return Phase.RESPONSE; // malformed, or a transfer coding the client cannot decode
        }
    }

    public enum Phase {
        /** Name lookup or TCP/TLS connect failed or took longer than {@code connectTimeout}. */
        CONNECT,
        /**
         * No connection of the host's pool came free within {@code maxConnWait}; for a
         * {@link PipelineClient}, every connection already holds {@code maxPending} requests.
         */
        POOL,
        /** The request could not be written (the connection broke, or {@code writeTimeout}). */
        WRITE,
        /** No response byte within {@code readTimeout}, or the response stalled for as long. */
        READ,
        /** The whole call took longer than {@code totalTimeout}. */
        TOTAL,
        /** The server's response was malformed (status line, a field, framing, a chunk). */
        RESPONSE,
        /** The response was larger than {@code maxResponseBodySize} or its head than the limit. */
        TOO_LARGE,
        /** The connection closed or was reset before the response was complete. */
        CLOSED,
        /**
         * TLS failed: the server's certificate was not trusted or did not name the host, the peers
         * shared no protocol version or cipher suite, or a record was bad. The request was not sent in
         * clear and is never retried (a man in the middle answers the same way each time); the
         * {@link #getCause() cause} is the {@link javax.net.ssl.SSLException} (for a certificate or host
         * name, an {@link javax.net.ssl.SSLHandshakeException}).
         */
        TLS,
        /**
         * A redirect could not be followed: more than {@code followRedirects(n)} hops, or a
         * {@code Location} that is not an http or https URL.
         */
        REDIRECT,
        /**
         * The server reset the call's HTTP/2 stream ({@code RST_STREAM}, its error code named in the
         * message; RFC 9113 §6.4). The connection and its other calls go on.
         */
        RESET,
        /** The client was closed. */
        SHUTDOWN,
        /**
         * A {@link BalancingClient} had no upstream to send to: none is configured, or every one is
         * ejected after failing.
         */
        UNAVAILABLE
    }

    private final Phase phase;
    private final String host;

    public ClientException(Phase phase, String host, String reason) {
        super(host + ": " + reason);
        this.phase = phase;
        this.host = host;
    }

    public ClientException(Phase phase, String host, String reason, Throwable cause) {
        super(host + ": " + reason, cause);
        this.phase = phase;
        this.host = host;
    }

    public Phase phase() {
        return phase;
    }

    /** {@code host:port} of the request. */
    public String host() {
        return host;
    }
}
