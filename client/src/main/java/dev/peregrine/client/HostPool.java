package dev.peregrine.client;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.TimerWheel;
import dev.peregrine.loop.Timeout;
import dev.peregrine.tls.engine.TlsClientLayer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * The connections of one {@code host:port}, all on one loop: idle ones are reused last-in first-out
 * (the warmest first, the coldest age out), new ones are opened up to {@code maxConnsPerHost}, and
 * calls beyond that wait at most {@code maxConnWait}.
 * <pre>
 *   submit(call) --&gt; an idle connection (LIFO) --&gt; start
 *                --&gt; fewer than maxConnsPerHost open --&gt; connect, then start
 *                --&gt; else wait (FIFO) until a connection is released or maxConnWait
 *   released(conn) --&gt; the longest-waiting call, else idle (read interest on: a FIN, RST or stray
 *                      byte closes it at once, so none is handed out dead)
 * </pre>
 * Thread: the pool's loop thread only ({@link HttpClient} hops there).
 */
final class HostPool implements CallSite {
    private final HttpClient client;
    private final String host;
    private final String hostName;
    private final int port;
    private final boolean https;
    private final LoopContext ctx;
    private final EndpointLayer tls;
    private final ArrayDeque<ClientConnection> idle = new ArrayDeque<>();
    private final ArrayDeque<Call> waiting = new ArrayDeque<>();
    private final WaitTimer waitTimer = new WaitTimer();
    private final CallRecycler calls = new CallRecycler(this);
    /** This host's counters, looked up once rather than per response. */
    final HttpClient.HostMetrics metrics;
    private InetSocketAddress address;
    private int open;
    /** The host's HTTP/2 side, or null when the client's {@link Http2Mode} does not try it for this scheme. */
    private final Http2Session h2;
    /** ALPN chose HTTP/1.1: the host is not tried over HTTP/2 again. */
    private boolean h2Refused;

    HostPool(HttpClient client, ClientRequest first, LoopContext ctx) {
        this.client = client;
        this.host = first.hostKey();
        this.hostName = first.uri().getHost();
        this.port = first.port();
        this.https = first.https();
        this.ctx = ctx;
        this.metrics = client.metricsFor(host);
        this.tls = https ? new TlsClientLayer(client.sslContext, hostName, port, java.util.List.of("http/1.1"),
                client.verifyHostname, client.connectTimeoutMillis) : null;
        boolean tryH2 = https ? client.http2 != Http2Mode.OFF : client.http2 == Http2Mode.PRIOR_KNOWLEDGE;
        this.h2 = tryH2 ? new Http2Session(this, ctx, https, hostName, port) : null;
        if (!client.dialer.resolvesTarget()) {
            address = InetSocketAddress.createUnresolved(hostName, port); // the dialer's way needs no lookup here
        }
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public HttpClient client() {
        return client;
    }

    @Override
    public CallRecycler calls() {
        return calls;
    }

    EventLoop loop() {
        return ctx.eventLoop();
    }

    @Override
    public TimerWheel timers() {
        return ctx.timers();
    }

    long now() {
        return System.currentTimeMillis();
    }

    /** Takes a call (first attempt or retry). */
    @Override
    public void submit(Call call) {
        if (call.done()) {
            return;
        }
        if (client.closed) {
            call.fail(new ClientException(ClientException.Phase.SHUTDOWN, host, "client closed"));
            return;
        }
        if (call.attempts == 0) {
            long left = call.queuedAtMillis + client.totalTimeoutMillis - now();
            timers().schedule(call, Math.max(1, left), now());
        }
        if (h2 != null && !h2Refused && !call.http1 && call.listener == null && call.request.producer() == null) {
            h2.submit(call); // streamed bodies go over HTTP/1.1 (docs/http2.md, "Client")
            return;
        }
        ClientConnection c = call.attempts == 0 || call.http1 ? takeIdle() : null; // a retry goes to a new connection
        if (c != null) {
            c.start(call);
            return;
        }
        if (open < client.maxConnsPerHost) {
            connect(call);
            return;
        }
        call.waitingSinceMillis = now();
        waiting.add(call);
        if (!waitTimer.scheduled()) {
            timers().schedule(waitTimer, client.maxConnWaitMillis, now());
        }
    }

    private ClientConnection takeIdle() {
        long now = now();
        while (!idle.isEmpty()) {
            ClientConnection c = idle.pollFirst();
            if (c.usable(now)) {
                return c;
            }
            c.abandon();
        }
        return null;
    }

    private void connect(Call call) {
        open++;
        if (address == null) {
            address = client.resolve(hostName, port);
            if (address == null) {
                open--;
                client.lookUp(hostName, port, loop(), (a, failure) -> resolved(call, a, failure));
                return;
            }
        }
        ClientConnection conn = new ClientConnection(this);
        client.dialer.dial(ctx, address, https, tls, conn, client.connectTimeoutMillis, new ConnectCallback() {
            @Override
            public void connected(Connection c) {
                conn.start(call);
            }

            @Override
            public void failed(IOException cause) {
                open--;
                metrics.connectFailures.incrementAndGet();
                call.fail(new ClientException(ClientException.Phase.CONNECT, host, cause.getMessage(), cause));
                serveWaiting();
            }
        });
    }

    /** The name lookup a loop must not do has finished (off the loop). */
    private void resolved(Call call, InetSocketAddress resolved, IOException failure) {
        if (failure != null) {
            call.fail(new ClientException(ClientException.Phase.CONNECT, host, "cannot resolve " + hostName + ": "
                    + failure.getMessage(), failure));
            return;
        }
        address = resolved;
        submit(call);
    }

    String hostName() {
        return hostName;
    }

    int port() {
        return port;
    }

    /** ALPN chose HTTP/1.1 for this host: it stays HTTP/1.1. */
    void http2Refused() {
        h2Refused = true;
    }

    /** A connection finished its exchange and may serve another. */
    void released(ClientConnection c) {
        Call next = nextWaiting();
        if (next != null) {
            c.start(next);
            return;
        }
        idle.addFirst(c);
    }

    /** A connection closed (its call, if any, was already answered or failed). */
    void closed(ClientConnection c) {
        open--;
        idle.remove(c);
        serveWaiting();
    }

    /** Retries {@code call} on a new connection, if the retry policy allows. Returns whether it did. */
    boolean retry(Call call, String why) {
        if (call.done() || call.attempts >= client.maxAttempts || !call.request.idempotent() || !call.request.replayable() || client.closed
                || client.retryIf != null && !client.retryIf.test(call.request)) {
            return false;
        }
        metrics.retries.incrementAndGet();
        submit(call);
        return true;
    }

    @Override
    public void forget(Call call) {
        waiting.remove(call);
        if (h2 != null) {
            h2.forget(call);
        }
    }

    private void serveWaiting() {
        Call next = nextWaiting();
        if (next != null && open < client.maxConnsPerHost) {
            connect(next);
        } else if (next != null) {
            waiting.addFirst(next);
        }
    }

    private Call nextWaiting() {
        Call c;
        while ((c = waiting.poll()) != null) {
            if (!c.done()) {
                return c;
            }
        }
        return null;
    }

    /** Closes every idle connection (client close). */
    void closeIdle() {
        if (h2 != null) {
            h2.closeAll();
        }
        for (Iterator<ClientConnection> it = idle.iterator(); it.hasNext(); ) {
            ClientConnection c = it.next();
            it.remove();
            c.abandon();
        }
        Call c;
        while ((c = waiting.poll()) != null) {
            c.fail(new ClientException(ClientException.Phase.SHUTDOWN, host, "client closed"));
        }
    }

    /** Fails calls that waited longer than {@code maxConnWait} for a connection. */
    private final class WaitTimer extends Timeout {
        @Override
        protected void onTimeout() {
            long now = now();
            for (Iterator<Call> it = waiting.iterator(); it.hasNext(); ) {
                Call c = it.next();
                if (now - c.waitingSinceMillis >= client.maxConnWaitMillis) {
                    it.remove();
                    c.fail(new ClientException(ClientException.Phase.POOL, host, "no connection free within "
                            + client.maxConnWaitMillis + " ms (maxConnsPerHost " + client.maxConnsPerHost + ")"));
                }
            }
            if (!waiting.isEmpty()) {
                long oldest = waiting.peek().waitingSinceMillis;
                timers().schedule(this, Math.max(1, oldest + client.maxConnWaitMillis - now), now);
            }
        }
    }
}
