package dev.peregrine.client;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.loop.TimerWheel;
import dev.peregrine.tls.engine.TlsClientLayer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The pipelined connections of one {@code host:port} on one loop of a {@link PipelineClient}.
 * <pre>
 *   submit(call) --&gt; a connection with nothing pending                  --&gt; joins its batch
 *                --&gt; else, fewer than maxConns open (or connecting)      --&gt; a new connection
 *                --&gt; else the connection with the fewest pending, if under maxPending
 *                --&gt; else the call fails at once: ClientException phase POOL
 *   retry(call)  --&gt; (idempotent, attempts left, a connection broke before its first byte) submit again;
 *                    the broken connection already left the list, so it goes to another one
 * </pre>
 * Thread: the host's loop thread only ({@link PipelineClient} hops there).
 */
final class PipelineHost implements CallSite {
    final int maxConns;
    final int maxPending;
    final long maxBatchDelayMillis;
    private final PipelineClient owner;
    private final HttpClient client;
    private final String host;
    private final String hostName;
    private final int port;
    private final boolean https;
    private final LoopContext ctx;
    private final EndpointLayer tls;
    private final List<PipelineConnection> conns = new ArrayList<>();
    private final CallRecycler calls = new CallRecycler(this);
    /** This host's counters, looked up once rather than per response. */
    final HttpClient.HostMetrics metrics;
    private InetSocketAddress address;

    PipelineHost(PipelineClient owner, ClientRequest first, LoopContext ctx) {
        this.owner = owner;
        this.client = owner.client;
        this.maxConns = owner.maxConns;
        this.maxPending = owner.maxPending;
        this.maxBatchDelayMillis = owner.maxBatchDelayMillis;
        this.host = first.hostKey();
        this.hostName = first.uri().getHost();
        this.port = first.port();
        this.ctx = ctx;
        this.metrics = client.metricsFor(host);
        this.https = first.https();
        this.tls = https ? new TlsClientLayer(client.sslContext, hostName, port, List.of("http/1.1"),
                client.verifyHostname, client.connectTimeoutMillis) : null;
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
    public TimerWheel timers() {
        return ctx.timers();
    }

    @Override
    public CallRecycler calls() {
        return calls;
    }

    LoopContext context() {
        return ctx;
    }

    EventLoop loop() {
        return ctx.eventLoop();
    }

    long now() {
        return System.currentTimeMillis();
    }

    /** Takes a call: a first attempt, a retry, or one handed back unwritten by a closed connection. */
    @Override
    public void submit(Call call) {
        if (call.done()) {
            return;
        }
        if (client.closed || owner.closed) {
            call.fail(new ClientException(ClientException.Phase.SHUTDOWN, host, "client closed"));
            return;
        }
        long now = now();
        if (!call.scheduled()) {
            timers().schedule(call, Math.max(1, call.queuedAtMillis + client.totalTimeoutMillis - now), now);
        }
        retireAged(now);
        // The least pending connection; one with nothing pending cannot be beaten, so the scan stops there
        // (a call per request: with many connections a full scan was a tenth of the pipelined client's CPU).
        PipelineConnection least = null;
        int leastPending = Integer.MAX_VALUE;
        for (int i = 0; i < conns.size() && leastPending > 0; i++) {
            PipelineConnection c = conns.get(i);
            int p = c.pending();
            if (p < leastPending && c.accepting(now)) {
                least = c;
                leastPending = p;
            }
        }
        if (least != null && least.pending() == 0) {
            least.enqueue(call);
        } else if (conns.size() < maxConns) {
            connect(call);
        } else if (least != null && least.pending() < maxPending) {
            least.enqueue(call);
        } else {
            call.fail(new ClientException(ClientException.Phase.POOL, host, "pipeline full: " + maxConns
                    + " connection(s) with maxPending " + maxPending + " requests each"));
        }
    }

    /** Closes connections past {@code maxLifetime} that carry nothing; busy ones take no new call and close when idle. */
    private void retireAged(long now) {
        if (client.maxLifetimeMillis <= 0) {
            return;
        }
        for (int i = conns.size() - 1; i >= 0; i--) {
            PipelineConnection c = conns.get(i);
            if (c.pending() == 0 && !c.accepting(now)) { // pending first: busy connections are the rule, and cheaper to ask
                c.abandon(); // its onClosed removes it from conns
                conns.remove(c);
            }
        }
    }

    private void connect(Call call) {
        PipelineConnection conn = new PipelineConnection(this);
        conns.add(conn);
        conn.enqueue(call);
        if (address == null) {
            address = client.resolve(hostName, port);
        }
        if (address != null) {
            open(conn);
            return;
        }
        client.lookUp(hostName, port, loop(), (a, failure) -> {
            if (failure != null) {
                conns.remove(conn);
                conn.connectFailed(new ClientException(ClientException.Phase.CONNECT, host, "cannot resolve " + hostName
                        + ": " + failure.getMessage(), failure));
                return;
            }
            address = a;
            open(conn);
        });
    }

    private void open(PipelineConnection conn) {
        client.dialer.dial(ctx, address, https, tls, conn, client.connectTimeoutMillis, new ConnectCallback() {
            @Override
            public void connected(Connection c) {
                conn.connected();
            }

            @Override
            public void failed(IOException cause) {
                conns.remove(conn);
                metrics.connectFailures.incrementAndGet();
                conn.connectFailed(new ClientException(ClientException.Phase.CONNECT, host, cause.getMessage(), cause));
            }
        });
    }

    /**
     * A call was in flight on a connection that broke before any byte of its response: sends it again
     * if the retry rules allow (see {@link HttpClient.Builder#maxAttempts}). Returns whether it did.
     */
    boolean retry(Call call) {
        if (call.done() || call.attempts >= client.maxAttempts || !call.request.idempotent() || !call.request.replayable() || client.closed
                || owner.closed || client.retryIf != null && !client.retryIf.test(call.request)) {
            return false;
        }
        metrics.retries.incrementAndGet();
        submit(call);
        return true;
    }

    /** {@code conn} closed (its calls are being answered, retried or handed back). */
    void closed(PipelineConnection conn) {
        conns.remove(conn);
    }

    @Override
    public void forget(Call call) {
        // a queued call stays in its connection's queue and is skipped when the batch is written
    }

    /** Calls pending on every connection of this host on this loop. */
    int pending() {
        int n = 0;
        for (PipelineConnection c : conns) {
            n += c.pending();
        }
        return n;
    }

    /** Closes every connection (the client closing): their calls fail with phase SHUTDOWN. */
    void closeAll() {
        for (PipelineConnection c : new ArrayList<>(conns)) {
            c.abandon();
        }
    }
}
