package dev.peregrine.client;

import dev.peregrine.http1.ResponseReader;
import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The first protocol of a connection to an HTTP proxy ({@link Dialer#connectProxy}): it asks for a
 * tunnel and, once the proxy grants it, hands the live connection to the client's protocol.
 * <pre>
 *   TCP connected --&gt; "CONNECT host:port HTTP/1.1" written, the connect timeout runs again
 *     --&gt; 2xx head read: switchTo(client protocol), for https the origin's TLS begins on the same
 *                        socket ({@link TunnelTls}), the caller's callback hears "connected";
 *                        bytes after the head go to the client protocol in the same turn (https: none
 *                        may come before the ClientHello: such bytes are a refusal)
 *     --&gt; other status, a malformed answer, FIN, or the timeout: the callback hears "failed" with the
 *                        reason, the connection closes (the client protocol never saw it)
 * </pre>
 * RFC 9110 §9.3.6: the request target is the authority form {@code host:port}, a 2xx ends the proxy's
 * part (its fields frame nothing), anything else is its refusal.
 *
 * <p>Thread: the connection's loop thread.
 */
final class ConnectTunnel implements Protocol {
    private static final int T_ANSWER = 1;

    private final InetSocketAddress proxy;
    private final String authority;
    private final String proxyAuthorization;
    private final Protocol next;
    private final long timeoutMillis;
    private final ConnectCallback callback;
    /** For an https origin: TLS to start inside the tunnel once it is up; null for http. */
    private final TunnelTls tls;
    private final ResponseReader reader = new ResponseReader(16 * 1024, 0);
    private boolean over;

    ConnectTunnel(InetSocketAddress proxy, String authority, String proxyAuthorization, Protocol next, long timeoutMillis,
                  ConnectCallback callback, TunnelTls tls) {
        this.proxy = proxy;
        this.authority = authority;
        this.proxyAuthorization = proxyAuthorization;
        this.next = next;
        this.timeoutMillis = timeoutMillis;
        this.callback = callback;
        this.tls = tls;
    }

    /** What the loop's connect tells: on TCP connected, the CONNECT request; a failed connect goes on as it is. */
    ConnectCallback connectCallback() {
        return new ConnectCallback() {
            @Override
            public void connected(Connection c) {
                sendConnect(c);
            }

            @Override
            public void failed(IOException cause) {
                over = true;
                callback.failed(cause);
            }
        };
    }

    private void sendConnect(Connection c) {
        reader.expect(false);
        String request = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n"
                + (proxyAuthorization != null ? "Proxy-Authorization: " + proxyAuthorization + "\r\n" : "") + "\r\n";
        c.out().put(request.getBytes(StandardCharsets.ISO_8859_1)); // a few dozen bytes: the batch has room
        c.flush();
        c.updateTimer();
    }

    @Override
    public int onInput(Connection c, ByteBuffer buf, int start, int end) {
        if (over) {
            return end;
        }
        int r = reader.readHead(buf, start, end);
        if (r == ResponseReader.NEED_MORE) {
            return reader.responseStart(); // interim responses before it are consumed
        }
        if (r == ResponseReader.ERROR) {
            refuse(c, "a malformed answer to CONNECT (" + reader.error() + ")");
            return end;
        }
        if (reader.status() / 100 != 2) {
            refuse(c, "answered " + reader.status() + " " + reader.reason() + " to CONNECT " + authority);
            return end;
        }
        if (tls != null && r < end) {
            // The origin cannot speak before our ClientHello: these bytes are the proxy's, and not TLS.
            refuse(c, "sent bytes after its " + reader.status() + " to CONNECT " + authority + ", before the TLS handshake");
            return end;
        }
        over = true;
        c.switchTo(next);
        c.restartTimerPhase();
        if (tls != null) {
            tls.begin(); // RFC 9110 §9.3.6: from here the tunnel carries the origin's TLS
        }
        callback.connected(c); // the client protocol writes its request now; bytes past r are offered to it next
        return r;
    }

    private void refuse(Connection c, String why) {
        over = true;
        callback.failed(new IOException("proxy " + proxy + " " + why));
        c.close();
    }

    @Override
    public void onInputOverflow(Connection c) {
        refuse(c, "sent an answer to CONNECT larger than 16 KiB");
    }

    @Override
    public void onEndOfInput(Connection c) {
        if (!over) {
            refuse(c, "closed the connection before answering CONNECT " + authority);
        } else {
            c.close();
        }
    }

    @Override
    public int timerPhase() {
        return over ? 0 : T_ANSWER;
    }

    @Override
    public long timeoutMillis(int phase) {
        return timeoutMillis;
    }

    @Override
    public boolean progressRestarts(int phase) {
        return false;
    }

    @Override
    public void onTimeout(Connection c, int phase) {
        if (!over) {
            refuse(c, "did not answer CONNECT " + authority + " within " + timeoutMillis + " ms");
        }
    }

    @Override
    public void onShutdown(Connection c) {
        c.close();
    }

    @Override
    public void onClosed(Connection c) {
        if (!over) {
            over = true;
            callback.failed(new IOException("proxy " + proxy + " reset the connection before answering CONNECT " + authority));
        }
    }
}
