package dev.peregrine.tls.engine;

import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.LayeredEndpoint;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.SocketEndpoint;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * TLS for outbound connections to one host ({@code dev.peregrine.loop.EventLoop#connect}): each
 * socket gets a {@link TlsEndpoint} over a client-mode {@link SSLEngine} with SNI (RFC 6066) for
 * {@code host} unless it is an IP literal, hostname verification ({@code HTTPS} endpoint
 * identification, RFC 2818 / RFC 6125) unless turned off, and the ALPN names given (RFC 7301). The
 * {@link SSLContext} decides trust and keys; reusing one context across connections lets the JDK
 * resume sessions. Delegated tasks run on one small daemon pool shared by every client layer.
 *
 * <p>Thread: any; {@link #wrap} on the loop that connected the socket.
 */
public final class TlsClientLayer implements EndpointLayer {
    private static final long DEFAULT_HANDSHAKE_TIMEOUT_MILLIS = 10_000;

    private final SSLContext sslContext;
    private final String host;
    private final int port;
    private final String[] alpn;
    private final boolean verifyHostname;
    private final long handshakeTimeoutMillis;

    /**
     * @param sslContext trust (and client keys, if any); {@code SSLContext.getDefault()} trusts the JDK's CAs
     * @param host the name the server must prove (and the SNI name)
     * @param alpn protocols to offer, in order of preference; empty for none
     * @param verifyHostname whether the certificate must match {@code host} (leave on outside tests)
     */
    public TlsClientLayer(SSLContext sslContext, String host, int port, List<String> alpn, boolean verifyHostname,
                          long handshakeTimeoutMillis) {
        this.sslContext = sslContext;
        this.host = host;
        this.port = port;
        this.alpn = alpn.toArray(new String[0]);
        this.verifyHostname = verifyHostname;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
    }

    /** Verifying {@code host}, no ALPN, a 10 s handshake timeout. */
    public TlsClientLayer(SSLContext sslContext, String host, int port) {
        this(sslContext, host, port, List.of(), true, DEFAULT_HANDSHAKE_TIMEOUT_MILLIS);
    }

    @Override
    public LayeredEndpoint wrap(SocketEndpoint socket, LoopContext ctx) {
        SSLEngine engine = sslContext.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        SSLParameters p = engine.getSSLParameters();
        if (verifyHostname) {
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        if (!isIpLiteral(host)) {
            p.setServerNames(List.of(new SNIHostName(host)));
        }
        if (alpn.length > 0) {
            p.setApplicationProtocols(alpn);
        }
        engine.setSSLParameters(p);
        return new TlsEndpoint(socket, engine, ctx, Tasks.POOL, handshakeTimeoutMillis);
    }

    /** IP literals get no SNI (RFC 6066 §3: "Literal IPv4 and IPv6 addresses are not permitted"). */
    public static boolean isIpLiteral(String host) {
        if (host.indexOf(':') >= 0) {
            return true;
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            if (c != '.' && (c < '0' || c > '9')) {
                return false;
            }
        }
        return !host.isEmpty();
    }

    /** Nothing to release: the task pool is shared and its idle threads end by themselves. */
    @Override
    public void close() {
    }

    /** The delegated-task pool of all client layers, created on first use. */
    private static final class Tasks {
        static final ExecutorService POOL = create();

        private static ExecutorService create() {
            AtomicInteger n = new AtomicInteger();
            int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
            ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "peregrine-tls-client-task-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
            pool.allowCoreThreadTimeOut(true);
            return pool;
        }
    }
}
