package dev.peregrine.client;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.tls.engine.TlsClientLayer;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A host's HTTP/2 side, kept by its {@link HostPool} on the pool's loop: its connections
 * ({@link Http2ClientConnection}: one by default, up to {@code http2Connections}) carrying the calls as
 * streams, and the calls waiting for a stream.
 * <pre>
 *   submit(call) --&gt; queued; one loop task ({@link #drainTask}) behind the calls that came together
 *                    starts as many as the server's MAX_CONCURRENT_STREAMS allows and writes them in
 *                    one batch; a stream that ends makes room for the next queued call
 *   no connection --&gt; dial (TLS: ALPN h2 then http/1.1); the calls wait meanwhile
 *   ALPN chose http/1.1 (or nothing), or an h2c preface got an HTTP/1.1 answer --&gt; the host is
 *                    HTTP/1.1 from then on: the queued calls, and the streams started but never taken
 *                    by the server, go to the pool
 *   GOAWAY, an idle or read timeout --&gt; the connection drains (no new stream on it); the next call
 *                    dials a new one
 *   connect failed --&gt; every queued call fails with the connect failure
 * </pre>
 * Thread: the pool's loop thread.
 */
final class Http2Session {
    private final HostPool pool;
    private final HttpClient client;
    private final LoopContext ctx;
    private final boolean https;
    private final EndpointLayer tls;
    private final ArrayDeque<Call> queue = new ArrayDeque<>();
    /** Connections that take new streams (or will, once connected), at most {@code http2Connections}. */
    private final List<Http2ClientConnection> live = new ArrayList<>(2);
    /** Every connection not yet closed: the live ones and those draining. */
    private final List<Http2ClientConnection> all = new ArrayList<>(2);
    /** A connection being made (one at a time), or null. */
    private Http2ClientConnection connecting;
    private boolean drainQueued;
    /** {@link #drain}'s share of the queue per live connection. */
    private int[] assigned = new int[4];
    private InetSocketAddress address;
    private final Runnable drainTask = this::drain;

    Http2Session(HostPool pool, LoopContext ctx, boolean https, String hostName, int port) {
        this.pool = pool;
        this.client = pool.client();
        this.ctx = ctx;
        this.https = https;
        this.tls = https ? new TlsClientLayer(client.sslContext, hostName, port, List.of("h2", "http/1.1"),
                client.verifyHostname, client.connectTimeoutMillis) : null;
    }

    String host() {
        return pool.host();
    }

    HttpClient client() {
        return client;
    }

    void submit(Call call) {
        queue.add(call);
        drainLater();
    }

    private void drainLater() {
        if (!drainQueued) {
            drainQueued = true;
            ctx.eventLoop().execute(drainTask); // behind the other calls of this burst: one batch for all
        }
    }

    /**
     * Spreads the queued calls over the live connections, each to the one with the fewest open streams
     * that has room under its MAX_CONCURRENT_STREAMS, then writes each connection's batch before the
     * next one's (the loop's write buffer is shared). One more connection is opened, up to
     * {@code http2Connections}, while calls wait or every live connection is busy.
     */
    private void drain() {
        drainQueued = false;
        int n = live.size();
        if (assigned.length < n) {
            assigned = new int[Math.max(n, 2 * assigned.length)];
        }
        java.util.Arrays.fill(assigned, 0, n, 0);
        int waiting = queue.size();
        for (int k = 0; k < waiting; k++) {
            int best = -1;
            int bestLoad = Integer.MAX_VALUE;
            for (int i = 0; i < n; i++) {
                Http2ClientConnection conn = live.get(i);
                int load = conn.openStreams() + assigned[i];
                if (load < bestLoad && conn.canStart(assigned[i])) {
                    best = i;
                    bestLoad = load;
                }
            }
            if (best < 0) {
                break;
            }
            assigned[best]++;
        }
        int leastOpen = n == 0 ? 0 : Integer.MAX_VALUE;
        for (int i = 0; i < n && i < live.size(); i++) { // a write that fails closes its connection: live shrinks
            Http2ClientConnection conn = live.get(i);
            if (assigned[i] > 0 && start(conn, assigned[i]) > 0) {
                conn.c.flush();
                conn.c.updateTimer();
            }
            leastOpen = Math.min(leastOpen, conn.openStreams());
        }
        for (int i = live.size() - 1; i >= 0; i--) {
            if (live.get(i).draining()) {
                live.remove(i); // its stream ids ran out: it finishes its streams and closes
            }
        }
        if (connecting == null && live.size() < client.http2Connections && (!queue.isEmpty() || leastOpen > 0)) {
            connect();
        }
    }

    /** Starts up to {@code n} queued calls on {@code conn} while it takes them; returns how many. */
    private int start(Http2ClientConnection conn, int n) {
        int started = 0;
        Call call;
        while (started < n && conn.canStart() && (call = queue.poll()) != null) {
            if (!call.done()) {
                conn.start(call);
                started++;
            }
        }
        return started;
    }

    /**
     * From inside {@code conn}'s input (its batch is written when the input is done): streams that
     * ended there make room for queued calls on the same connection.
     */
    void fill(Http2ClientConnection conn) {
        start(conn, Integer.MAX_VALUE);
        if (!queue.isEmpty()) {
            drainLater();
        }
    }

    private void connect() {
        if (address == null) {
            address = client.resolve(pool.hostName(), pool.port());
            if (address == null && client.dialer.resolvesTarget()) {
                client.lookUp(pool.hostName(), pool.port(), ctx.eventLoop(), (a, failure) -> {
                    if (failure != null) {
                        failQueued(new ClientException(ClientException.Phase.CONNECT, host(), "cannot resolve "
                                + pool.hostName() + ": " + failure.getMessage(), failure));
                    } else {
                        address = a;
                        drain();
                    }
                });
                return;
            }
            if (address == null) {
                address = InetSocketAddress.createUnresolved(pool.hostName(), pool.port());
            }
        }
        Http2ClientConnection conn = new Http2ClientConnection(this, https);
        connecting = conn;
        all.add(conn);
        client.dialer.dial(ctx, address, https, tls, conn, client.connectTimeoutMillis, new ConnectCallback() {
            @Override
            public void connected(Connection c) {
                conn.connected();
                if (!https) {
                    ready(conn); // h2c: requests may follow the preface at once
                }
            }

            @Override
            public void failed(IOException cause) {
                all.remove(conn);
                connectFailed(conn, new ClientException(ClientException.Phase.CONNECT, host(), cause.getMessage(), cause));
            }
        });
    }

    /** The connection may take streams (h2c: connected; TLS: ALPN said h2). */
    void ready(Http2ClientConnection conn) {
        if (connecting == conn) {
            connecting = null;
            live.add(conn);
            drainLater();
        }
    }

    /** The connection could not be made, or failed before its preface was answered. */
    void connectFailed(Http2ClientConnection conn, ClientException e) {
        if (connecting == conn) {
            connecting = null;
            pool.metrics.connectFailures.incrementAndGet();
            if (live.isEmpty()) {
                failQueued(e);
            } else {
                drainLater();
            }
        }
    }

    private void failQueued(ClientException e) {
        Call call;
        while ((call = queue.poll()) != null) {
            failed(call, e);
        }
    }

    /**
     * ALPN chose HTTP/1.1, or the server answered the h2c preface in HTTP/1.1: the host goes on over
     * HTTP/1.1, these calls first (none was taken by the server).
     */
    void alpnRefused(Http2ClientConnection conn) {
        if (connecting == conn) {
            connecting = null;
        }
        pool.http2Refused();
        Call call;
        while ((call = queue.poll()) != null) {
            pool.submit(call);
        }
    }

    /** The connection takes no new stream (GOAWAY, a timeout): the next calls get a new one. */
    void draining(Http2ClientConnection conn) {
        live.remove(conn);
        if (connecting == conn) {
            connecting = null;
        }
        if (!queue.isEmpty()) {
            drainLater();
        }
    }

    void closed(Http2ClientConnection conn) {
        all.remove(conn);
        draining(conn);
    }

    /**
     * Sends {@code call} again on a stream yet to be opened, if the policy allows: an idempotent and
     * replayable request within {@code maxAttempts}; with {@code unprocessed} (the server said it did not
     * process it: REFUSED_STREAM, §8.7) any replayable request.
     */
    boolean retry(Call call, boolean unprocessed) {
        if (call.done() || call.attempts >= client.maxAttempts || !call.request.replayable() || client.closed
                || !unprocessed && (!call.request.idempotent() || client.retryIf != null && !client.retryIf.test(call.request))) {
            return false;
        }
        pool.metrics.retries.incrementAndGet();
        submit(call);
        return true;
    }

    /** The server refused the stream with HTTP_1_1_REQUIRED: the call goes to the host's HTTP/1.1 connections. */
    boolean overHttp1(Call call) {
        if (call.done() || !call.request.replayable() || client.closed) {
            return false;
        }
        call.http1 = true;
        pool.submit(call);
        return true;
    }

    void answered(Call call, ClientResponse r) {
        pool.metrics.responses.incrementAndGet();
        call.succeed(r);
    }

    void failed(Call call, ClientException e) {
        if (!call.done()) {
            pool.metrics.failures.incrementAndGet();
            call.fail(e);
        }
    }

    /** The call's total timeout ran out: out of the queue, or its stream cancelled. */
    void forget(Call call) {
        if (queue.remove(call)) {
            return;
        }
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).cancel(call)) {
                return;
            }
        }
    }

    /** The client closes: queued calls fail, connections close. */
    void closeAll() {
        failQueued(new ClientException(ClientException.Phase.SHUTDOWN, host(), "client closed"));
        for (Http2ClientConnection conn : new ArrayList<>(all)) {
            if (conn.c != null) {
                conn.c.close();
            }
        }
    }
}
