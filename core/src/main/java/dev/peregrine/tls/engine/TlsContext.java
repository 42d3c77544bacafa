package dev.peregrine.tls.engine;

import dev.peregrine.tls.TlsConfig;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.LayeredEndpoint;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.SocketEndpoint;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The TLS layer of one HTTPS listener: the {@link SSLContext} built from a {@link TlsConfig}, the
 * engine parameters every connection gets (protocol versions, ALPN offering the server's protocols
 * and {@code http/1.1}, RFC 7301), and the small executor that runs the engines' delegated tasks (certificate and key
 * operations) off the loop threads. {@link #wrap} puts a {@link TlsEndpoint} over each accepted socket.
 *
 * <p>Thread: any; {@link #wrap} on the loop accepting the socket.
 */
public final class TlsContext implements EndpointLayer {
    /** ALPN (RFC 7301): the protocol every connection starts with, offered last. */
    static final String HTTP_1_1 = "http/1.1";

    private final TlsConfig config;
    private final SSLContext sslContext;
    private final ThreadPoolExecutor tasks;
    /** ALPN names in the server's order of preference, {@code http/1.1} last. */
    private final String[] alpn;

    private TlsContext(TlsConfig config, SSLContext sslContext, java.util.List<String> alpn) {
        this.config = config;
        java.util.List<String> names = new java.util.ArrayList<>(alpn);
        names.add(HTTP_1_1);
        this.alpn = names.toArray(new String[0]);
        this.sslContext = sslContext;
        AtomicInteger n = new AtomicInteger();
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors() / 2));
        this.tasks = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "peregrine-tls-task-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.tasks.allowCoreThreadTimeOut(true);
    }

    /**
     * Builds the SSL context for {@code config} (loading Bouncy Castle only if it is chosen).
     *
     * @throws IllegalStateException when the provider cannot be set up (e.g. bctls missing)
     */
    public static TlsContext create(TlsConfig config) {
        return create(config, java.util.List.of());
    }

    /**
     * Builds the SSL context for {@code config}, offering {@code alpn} (in this order of preference)
     * before {@code http/1.1}.
     */
    public static TlsContext create(TlsConfig config, java.util.List<String> alpn) {
        KeyManager keys = new SniKeyManager(config.identities());
        try {
            SSLContext ctx;
            if (config.provider() == TlsConfig.Provider.BOUNCY_CASTLE) {
                try {
                    ctx = BouncyCastleJsse.context(keys);
                } catch (NoClassDefFoundError e) {
                    throw new IllegalStateException("TlsConfig.Provider.BOUNCY_CASTLE needs org.bouncycastle:bctls-jdk18on "
                            + "on the class path", e);
                }
            } else {
                ctx = SSLContext.getInstance("TLS");
                ctx.init(new KeyManager[]{keys}, null, new SecureRandom());
            }
            return new TlsContext(config, ctx, alpn);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
    }

    /** A server-mode engine with this listener's protocols and ALPN. */
    public SSLEngine newEngine() {
        SSLEngine engine = sslContext.createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(config.protocols());
        p.setApplicationProtocols(alpn);
        p.setUseCipherSuitesOrder(true);
        engine.setSSLParameters(p);
        return engine;
    }

    @Override
    public LayeredEndpoint wrap(SocketEndpoint socket, LoopContext ctx) {
        return new TlsEndpoint(socket, newEngine(), ctx, tasks, config.handshakeTimeoutMillis());
    }

    public TlsConfig config() {
        return config;
    }

    ExecutorService executor() {
        return tasks;
    }

    @Override
    public void close() {
        tasks.shutdownNow();
    }
}
