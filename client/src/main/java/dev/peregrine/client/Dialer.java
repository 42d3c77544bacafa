package dev.peregrine.client;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.Protocol;
import dev.peregrine.transport.MemoryPipe;
import dev.peregrine.transport.ServerLoops;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How the client obtains a connection for a {@code host:port} ({@link HttpClient.Builder#dialer}): TCP to
 * the host (the default), a Unix domain socket, or a tunnel through an HTTP proxy's {@code CONNECT}.
 * Whatever the way, the connection that results is an ordinary one of the host's pool (or pipeline):
 * same protocol, timeouts, retries and limits.
 * <pre>
 *   tcp()                     host name looked up off the loop (cached), TCP connect, TLS for https
 *   unixDomainSocket(path)    every host's connections go to the socket file (NIO transport only;
 *                             plain HTTP: a local peer needs no TLS); Host still names the URL's host
 *   connectProxy(proxy)       TCP to the proxy, "CONNECT host:port" (RFC 9110 §9.3.6), then HTTP over
 *                             the tunnel (https: TLS with the origin inside it); the proxy looks the host up
 *   inMemory(server)          no socket: a Server of this JVM accepts the connection on one of its loops
 *                             (http: its plain listener's, https: its TLS listener's); the URL's host and
 *                             port only go in Host and key the pool
 * </pre>
 * A dial that cannot be made (refused, timed out, a proxy answering other than 2xx, a transport that
 * cannot) fails the call with {@link ClientException.Phase#CONNECT} and the reason.
 *
 * <p>Thread: immutable; {@code dial} runs on the host's loop thread.
 */
public abstract class Dialer {
    private static final Dialer TCP = new Dialer() {
        @Override
        boolean resolvesTarget() {
            return true;
        }

        @Override
        void dial(LoopContext ctx, InetSocketAddress target, boolean https, EndpointLayer tls, Protocol protocol,
                  long timeoutMillis, ConnectCallback callback) {
            ctx.eventLoop().connect(target, tls, protocol, timeoutMillis, callback);
        }

        @Override
        public String toString() {
            return "tcp";
        }
    };

    Dialer() {
    }

    /** TCP to the URL's host and port (the default). */
    public static Dialer tcp() {
        return TCP;
    }

    /**
     * Every connection to the Unix domain socket at {@code socketFile} (JDK 16+ NIO), whatever the URL's
     * host, which still goes in {@code Host}. Needs the NIO transport ({@code Transport.NIO}): on epoll the
     * call fails with phase CONNECT saying so. {@code https} URLs fail likewise: no TLS over a local socket.
     */
    public static Dialer unixDomainSocket(Path socketFile) {
        if (socketFile == null) {
            throw new IllegalArgumentException("socketFile must not be null");
        }
        UnixDomainSocketAddress address = UnixDomainSocketAddress.of(socketFile);
        return new PlainOnly("unix:" + socketFile, "https over a Unix domain socket is not supported (" + address + ")") {
            @Override
            void open(EventLoop loop, InetSocketAddress target, Protocol protocol, long timeoutMillis, ConnectCallback callback) {
                loop.connectUnix(address, protocol, timeoutMillis, callback);
            }
        };
    }

    /**
     * Through the HTTP proxy at {@code proxy}: each connection is a tunnel opened with {@code CONNECT
     * host:port} (RFC 9110 §9.3.6), answered 2xx, then used like a direct connection. The proxy looks the
     * host up. For an {@code https} URL the client's TLS starts inside the tunnel once it is up: SNI and
     * hostname verification name the origin, never the proxy, and the client's trust applies. Pools stay
     * keyed by scheme, host and port (one proxy per client), so http and https to one origin never share a
     * tunnel. A proxy answering other than 2xx (407, 502) fails the call with phase CONNECT naming the proxy
     * and its answer.
     */
    public static Dialer connectProxy(InetSocketAddress proxy) {
        return connectProxy(proxy, null);
    }

    /** Like {@link #connectProxy(InetSocketAddress)}, sending {@code proxyAuthorization} as {@code Proxy-Authorization}. */
    public static Dialer connectProxy(InetSocketAddress proxy, String proxyAuthorization) {
        if (proxy == null || proxy.isUnresolved()) {
            throw new IllegalArgumentException("the proxy's address must be given resolved: " + proxy);
        }
        if (proxyAuthorization != null && (proxyAuthorization.indexOf('\r') >= 0 || proxyAuthorization.indexOf('\n') >= 0)) {
            throw new IllegalArgumentException("proxyAuthorization must not hold CR or LF");
        }
        return new Dialer() {
            @Override
            boolean resolvesTarget() {
                return false; // the proxy looks the host up
            }

            @Override
            void dial(LoopContext ctx, InetSocketAddress target, boolean https, EndpointLayer tls, Protocol protocol,
                      long timeoutMillis, ConnectCallback callback) {
                TunnelTls tunnelTls = https ? new TunnelTls(tls) : null;
                ConnectTunnel tunnel = new ConnectTunnel(proxy, target.getHostString() + ":" + target.getPort(),
                        proxyAuthorization, protocol, timeoutMillis, callback, tunnelTls);
                ctx.eventLoop().connect(proxy, tunnelTls, tunnel, timeoutMillis, tunnel.connectCallback());
            }

            @Override
            public String toString() {
                return "connect-proxy:" + proxy;
            }
        };
    }

    /**
     * Every connection to {@code server}, a started {@link dev.peregrine.Server} of this JVM, with no socket
     * (fasthttp's in-memory listener): the server accepts it on one of its loops, round-robin, as if from
     * its listener (its routes, settings and, for {@code https} URLs, its TLS listener's certificate), and
     * the client's connection is an ordinary one of the host's pool. Timeouts, pipelining, the reuse path
     * and the server's graceful stop behave as over TCP. A server that has closed, or serves no listener for
     * the URL's scheme, fails the call with phase CONNECT saying so.
     */
    public static Dialer inMemory(dev.peregrine.Server server) {
        if (server == null) {
            throw new IllegalArgumentException("server must not be null");
        }
        AtomicInteger next = new AtomicInteger();
        return new Dialer() {
            @Override
            boolean resolvesTarget() {
                return false;
            }

            @Override
            void dial(LoopContext ctx, InetSocketAddress target, boolean https, EndpointLayer tls, Protocol protocol,
                      long timeoutMillis, ConnectCallback callback) {
                List<LoopContext> loops = ServerLoops.of(server, https);
                if (loops.isEmpty()) {
                    callback.failed(new IOException("the in-memory server " + (https ? "serves no https" : "serves no plain http")
                            + " or has closed"));
                    return;
                }
                MemoryPipe.connect(ctx, https ? tls : null, protocol,
                        loops.get(Math.floorMod(next.getAndIncrement(), loops.size())), callback);
            }

            @Override
            public String toString() {
                return "in-memory:" + server;
            }
        };
    }

    /** Whether the pool must look the URL's host up before {@link #dial} (off the loop). */
    abstract boolean resolvesTarget();

    /**
     * Opens a connection speaking {@code protocol} for {@code target} (resolved when
     * {@link #resolvesTarget}, else unresolved) and tells {@code callback}. Thread: {@code loop}'s.
     */
    abstract void dial(LoopContext ctx, InetSocketAddress target, boolean https, EndpointLayer tls, Protocol protocol,
                       long timeoutMillis, ConnectCallback callback);

    /** A dialer that needs no lookup of the target and carries plain http only (the https call fails saying why). */
    private abstract static class PlainOnly extends Dialer {
        private final String name;
        private final String noHttps;

        PlainOnly(String name, String noHttps) {
            this.name = name;
            this.noHttps = noHttps;
        }

        @Override
        final boolean resolvesTarget() {
            return false;
        }

        @Override
        final void dial(LoopContext ctx, InetSocketAddress target, boolean https, EndpointLayer tls, Protocol protocol,
                        long timeoutMillis, ConnectCallback callback) {
            if (https) {
                callback.failed(new IOException(noHttps));
            } else {
                open(ctx.eventLoop(), target, protocol, timeoutMillis, callback);
            }
        }

        abstract void open(EventLoop loop, InetSocketAddress target, Protocol protocol, long timeoutMillis, ConnectCallback callback);

        @Override
        public String toString() {
            return name;
        }
    }
}
