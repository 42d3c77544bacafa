package dev.peregrine.client;

import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EndpointLayer;
import dev.peregrine.loop.LoopContext;
import dev.peregrine.tls.engine.TlsClientLayer;
import dev.peregrine.loop.Protocol;
import dev.peregrine.websocket.Payload;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.WebSocketSession;
import dev.peregrine.websocket.engine.WebSocketClientEngine;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The first protocol of a client WebSocket connection ({@link HttpClient#webSocket}): the opening
 * handshake (RFC 6455 §4.1), then the live connection goes to the engine's WebSocket protocol in the
 * client's role ({@link WebSocketClientEngine}).
 * <pre>
 *   connected (TCP, or TLS done for wss) --&gt; GET with Upgrade: websocket, a random 16-byte
 *        Sec-WebSocket-Key, version 13, the subprotocols, the permessage-deflate offer and the
 *        builder's extra fields (WebSocketBuilder.header)
 *     --&gt; 101 head read (ResponseReader.readHead, expectUpgrade), checked:
 *          Upgrade: websocket, Connection: upgrade, Sec-WebSocket-Accept = base64(SHA-1(key+GUID)),
 *          a Sec-WebSocket-Protocol we offered (or none), an extension answer we can accept
 *        --&gt; switchTo(WebSocket protocol): onOpen completes the future; bytes after the head are its
 *     --&gt; another status, a failed check, a malformed head, FIN, a reset or connectTimeout:
 *          the future fails with a ClientException (phase RESPONSE, CLOSED or READ), the connection closes
 * </pre>
 * Thread: the connection's loop.
 */
final class WebSocketHandshake extends OpeningExchange {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final AtomicInteger NEXT_LOOP = new AtomicInteger();

    private final String host;
    private final String hostHeader;
    private final String target;
    private final WebSocketOptions options;
    private final WebSocketHandler handler;
    private final CompletableFuture<WebSocketSession> future;
    private final String key;
    /** Extra request fields as head lines ({@link WebSocketBuilder#header}), or "". */
    private final String extraFields;
    private InetSocketAddress remote;

    WebSocketHandshake(String host, String hostHeader, String target, WebSocketOptions options, WebSocketHandler handler,
                       long timeoutMillis, CompletableFuture<WebSocketSession> future, String extraFields) {
        super(timeoutMillis);
        this.host = host;
        this.hostHeader = hostHeader;
        this.target = target;
        this.options = options;
        this.handler = handler;
        this.future = future;
        this.extraFields = extraFields;
        byte[] nonce = new byte[16];
        RANDOM.nextBytes(nonce); // §4.1: a nonce randomly selected for each connection
        this.key = Base64.getEncoder().encodeToString(nonce);
    }

    /**
     * Validates {@code uri} at the call, then on one of the client's loops (round-robin): the host
     * looked up off the loop when the dialer needs it, the connection dialed (TLS for wss with SNI and
     * hostname verification, as https), and the handshake run.
     */
    static CompletableFuture<WebSocketSession> open(HttpClient client, URI uri, WebSocketOptions options, WebSocketHandler handler,
                                                    String extraFields) {
        if (uri == null || options == null || handler == null) {
            throw new NullPointerException("uri, options and handler must not be null");
        }
        if (options.execution() != dev.peregrine.Execution.LOOP) {
            throw new IllegalArgumentException("execution(BLOCKING) is a server route's setting: the client runs "
                    + "its callbacks on its loop (hand blocking work to a thread of your own)");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("ws") && !scheme.equals("wss")) {
            throw new IllegalArgumentException("a WebSocket URI is ws:// or wss://: " + uri);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("the WebSocket URI has no host: " + uri);
        }
        if (uri.getRawFragment() != null) {
            throw new IllegalArgumentException("a WebSocket URI has no fragment (RFC 6455 §3): " + uri);
        }
        boolean secure = scheme.equals("wss");
        String host = uri.getHost();
        int port = uri.getPort() > 0 ? uri.getPort() : secure ? 443 : 80;
        String hostHeader = (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host)
                + (uri.getPort() > 0 ? ":" + port : "");
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        String target = uri.getRawQuery() == null ? path : path + "?" + uri.getRawQuery();
        CompletableFuture<WebSocketSession> future = new CompletableFuture<>();
        WebSocketHandshake hs = new WebSocketHandshake(host + ":" + port, hostHeader, target, options, handler,
                client.connectTimeoutMillis, future, extraFields);
        List<LoopContext> loops = client.loops();
        LoopContext ctx = loops.get(Math.floorMod(NEXT_LOOP.getAndIncrement(), loops.size()));
        String bareHost = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
        EndpointLayer tls = secure ? new TlsClientLayer(client.sslContext, bareHost, port, List.of("http/1.1"),
                client.verifyHostname, client.connectTimeoutMillis) : null;
        ctx.eventLoop().execute(() -> {
            if (!client.dialer.resolvesTarget()) {
                client.dialer.dial(ctx, InetSocketAddress.createUnresolved(bareHost, port), secure, tls, hs,
                        client.connectTimeoutMillis, hs.connectCallback());
                return;
            }
            InetSocketAddress a = client.resolve(bareHost, port);
            if (a != null) {
                client.dialer.dial(ctx, a, secure, tls, hs, client.connectTimeoutMillis, hs.connectCallback());
                return;
            }
            client.lookUp(bareHost, port, ctx.eventLoop(), (resolved, failure) -> {
                if (failure != null) {
                    hs.connectCallback().failed(failure);
                } else {
                    client.dialer.dial(ctx, resolved, secure, tls, hs, client.connectTimeoutMillis, hs.connectCallback());
                }
            });
        });
        return future;
    }

    ConnectCallback connectCallback() {
        return new ConnectCallback() {
            @Override
            public void connected(Connection c) {
                sendRequest(c);
            }

            @Override
            public void failed(IOException cause) {
                abandon();
                future.completeExceptionally(new ClientException(ClientException.Phase.CONNECT, host,
                        String.valueOf(cause.getMessage()), cause));
            }
        };
    }

    private void sendRequest(Connection c) {
        if (c.endpoint().remoteAddress() instanceof InetSocketAddress) {
            remote = (InetSocketAddress) c.endpoint().remoteAddress();
        }
        reader.expectUpgrade();
        StringBuilder r = new StringBuilder(256).append("GET ").append(target).append(" HTTP/1.1\r\nHost: ").append(hostHeader)
                .append("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ").append(key)
                .append("\r\nSec-WebSocket-Version: 13\r\n");
        if (!options.subprotocols().isEmpty()) {
            r.append("Sec-WebSocket-Protocol: ").append(String.join(", ", options.subprotocols())).append("\r\n");
        }
        if (options.compression()) {
            r.append("Sec-WebSocket-Extensions: ").append(WebSocketClientEngine.deflateOffer()).append("\r\n");
        }
        r.append(extraFields).append("\r\n");
        send(c, r.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    @Override
    int onHead(Connection c, int r, int end) {
        if (reader.status() != 101) {
            refuse(c, Failure.REFUSED, "answered " + reader.status() + " " + reader.reason()
                    + " to the WebSocket handshake for " + target);
            return end;
        }
        String why = check();
        if (why != null) {
            refuse(c, Failure.REFUSED, why);
            return end;
        }
        Protocol ws;
        String subprotocol = header("Sec-WebSocket-Protocol");
        try {
            ws = WebSocketClientEngine.protocol(options, new Opening(), header("Sec-WebSocket-Extensions"),
                    subprotocol == null ? null : subprotocol.trim(), target, remote);
        } catch (IllegalArgumentException e) {
            refuse(c, Failure.REFUSED, e.getMessage());
            return end;
        }
        return handOver(c, ws, r); // its onOpen completes the future; the bytes after the head are its
    }

    /** The 101's fields (§4.1, the client's checks 1-6); null when they are right. */
    private String check() {
        if (!hasToken(header("Upgrade"), "websocket")) {
            return "the 101 lacks Upgrade: websocket";
        }
        if (!hasToken(header("Connection"), "upgrade")) {
            return "the 101 lacks Connection: Upgrade";
        }
        String accept = header("Sec-WebSocket-Accept");
        if (accept == null || !accept.trim().equals(WebSocketClientEngine.accept(key))) {
            return "the 101's Sec-WebSocket-Accept does not match the key sent";
        }
        String protocol = header("Sec-WebSocket-Protocol");
        if (protocol != null && !options.subprotocols().contains(protocol.trim())) {
            return "the server chose a subprotocol that was not offered: " + protocol;
        }
        if (!options.compression() && header("Sec-WebSocket-Extensions") != null) {
            return "the server accepted an extension that was not offered: " + header("Sec-WebSocket-Extensions");
        }
        return null;
    }

    /** A field's value, several lines joined with ", " (RFC 9110 §5.3); null when absent. */
    private String header(String name) {
        List<String> names = reader.names();
        List<String> values = reader.values();
        String v = null;
        for (int i = 0; i < names.size(); i++) {
            if (names.get(i).equalsIgnoreCase(name)) {
                v = v == null ? values.get(i) : v + ", " + values.get(i);
            }
        }
        return v;
    }

    private static boolean hasToken(String list, String token) {
        if (list == null) {
            return false;
        }
        for (String t : list.split(",")) {
            if (t.trim().toLowerCase(Locale.ROOT).equals(token)) {
                return true;
            }
        }
        return false;
    }

    @Override
    void tell(Failure failure, String detail, Connection c) {
        javax.net.ssl.SSLException tls = failure == Failure.RESET ? c.endpoint().tlsFailure() : null;
        future.completeExceptionally(switch (failure) {
            case REFUSED -> new ClientException(ClientException.Phase.RESPONSE, host, detail);
            case MALFORMED -> new ClientException(ClientException.Phase.RESPONSE, host, "a malformed handshake answer (" + detail + ")");
            case TOO_LARGE -> new ClientException(ClientException.Phase.TOO_LARGE, host, "the handshake answer is larger than 16 KiB");
            case CLOSED -> new ClientException(ClientException.Phase.CLOSED, host,
                    "the server closed the connection before answering the handshake");
            case TIMEOUT -> new ClientException(ClientException.Phase.READ, host, "no handshake answer within " + timeoutMillis + " ms");
            case RESET -> tls != null
                    ? new ClientException(ClientException.Phase.TLS, host, String.valueOf(tls.getMessage()), tls)
                    : new ClientException(ClientException.Phase.CLOSED, host, "the connection closed before the handshake's answer");
        });
    }

    /** The user's handler, completing the future at onOpen (before the user's onOpen runs). */
    private final class Opening implements WebSocketHandler {
        @Override
        public void onOpen(WebSocketSession session) {
            future.complete(session);
            handler.onOpen(session);
        }

        @Override
        public void onText(WebSocketSession session, Payload text) {
            handler.onText(session, text);
        }

        @Override
        public void onBinary(WebSocketSession session, Payload data) {
            handler.onBinary(session, data);
        }

        @Override
        public void onPing(WebSocketSession session, Payload data) {
            handler.onPing(session, data);
        }

        @Override
        public void onPong(WebSocketSession session, Payload data) {
            handler.onPong(session, data);
        }

        @Override
        public void onClose(WebSocketSession session, int code, String reason) {
            handler.onClose(session, code, reason);
        }
    }
}
