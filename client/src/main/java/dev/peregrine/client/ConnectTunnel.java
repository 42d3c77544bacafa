package dev.peregrine.client;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.Protocol;

import java.io.IOException;
import java.net.InetSocketAddress;
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
final class ConnectTunnel extends OpeningExchange {
    private final InetSocketAddress proxy;
    private final String authority;
    private final String proxyAuthorization;
    private final Protocol next;
    private final ConnectCallback callback;
    /** For an https origin: TLS to start inside the tunnel once it is up; null for http. */
    private final TunnelTls tls;

    ConnectTunnel(InetSocketAddress proxy, String authority, String proxyAuthorization, Protocol next, long timeoutMillis,
                  ConnectCallback callback, TunnelTls tls) {
        super(timeoutMillis);
        this.proxy = proxy;
        this.authority = authority;
        this.proxyAuthorization = proxyAuthorization;
        this.next = next;
        this.callback = callback;
        this.tls = tls;
    }

    /** What the loop's connect tells: on TCP connected, the CONNECT request; a failed connect goes on as it is. */
    ConnectCallback connectCallback() {
        return new ConnectCallback() {
            @Override
            public void connected(Connection c) {
                reader.expect(false);
                String request = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n"
                        + (proxyAuthorization != null ? "Proxy-Authorization: " + proxyAuthorization + "\r\n" : "") + "\r\n";
                send(c, request.getBytes(StandardCharsets.ISO_8859_1));
            }

            @Override
            public void failed(IOException cause) {
                abandon();
                callback.failed(cause);
            }
        };
    }

    @Override
    int onHead(Connection c, int r, int end) {
        if (reader.status() / 100 != 2) {
            refuse(c, Failure.REFUSED, "answered " + reader.status() + " " + reader.reason() + " to CONNECT " + authority);
            return end;
        }
        if (tls != null && r < end) {
            // The origin cannot speak before our ClientHello: these bytes are the proxy's, and not TLS.
            refuse(c, Failure.REFUSED, "sent bytes after its " + reader.status() + " to CONNECT " + authority
                    + ", before the TLS handshake");
            return end;
        }
        handOver(c, next, r);
        if (tls != null) {
            tls.begin(); // RFC 9110 §9.3.6: from here the tunnel carries the origin's TLS
        }
        callback.connected(c); // the client protocol writes its request now; bytes past r are offered to it next
        return r;
    }

    @Override
    void tell(Failure failure, String detail, Connection c) {
        String why = switch (failure) {
            case REFUSED -> detail;
            case MALFORMED -> "a malformed answer to CONNECT (" + detail + ")";
            case TOO_LARGE -> "sent an answer to CONNECT larger than 16 KiB";
            case CLOSED -> "closed the connection before answering CONNECT " + authority;
            case TIMEOUT -> "did not answer CONNECT " + authority + " within " + timeoutMillis + " ms";
            case RESET -> "reset the connection before answering CONNECT " + authority;
        };
        callback.failed(new IOException("proxy " + proxy + " " + why));
    }
}
