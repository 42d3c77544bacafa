package dev.peregrine.client;

import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;
import dev.peregrine.websocket.WebSocketSession;
import dev.peregrine.websocket.engine.HandshakeFields;

import java.net.URI;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * A client WebSocket connection before it opens ({@link HttpClient#webSocketBuilder}): extra header
 * fields for the handshake's {@code GET} and the options, then {@link #connect}.
 * <pre>{@code
 * WebSocketSession s = client.webSocketBuilder(URI.create("wss://example.com/ws/chat"))
 *         .header("Authorization", "Bearer " + token)
 *         .header("Cookie", "session=abc")
 *         .options(WebSocketOptions.DEFAULTS.subprotocols("v2.chat"))
 *         .connect(handler).get(10, TimeUnit.SECONDS);
 * }</pre>
 * A field the handshake owns ({@code Upgrade}, {@code Connection}, {@code Sec-WebSocket-*}), a framing
 * field, {@code Host}, a name that is not a token or a value with a control or non-ASCII character
 * throws {@link IllegalArgumentException} at {@link #header}.
 *
 * <p>Thread: one thread builds; {@link #connect} may be called more than once (each call opens a
 * connection with the fields and options set so far).
 */
public final class WebSocketBuilder {
    private final HttpClient client;
    private final URI uri;
    private final StringBuilder fields = new StringBuilder();
    private WebSocketOptions options = WebSocketOptions.DEFAULTS;

    WebSocketBuilder(HttpClient client, URI uri) {
        this.client = client;
        this.uri = uri;
    }

    /** Adds {@code name: value} to the handshake request; a name given twice is sent twice. */
    public WebSocketBuilder header(String name, String value) {
        HandshakeFields.check(name, value);
        fields.append(name).append(": ").append(value).append("\r\n");
        return this;
    }

    /** The connection's limits, timeouts, subprotocols and compression (default {@link WebSocketOptions#DEFAULTS}). */
    public WebSocketBuilder options(WebSocketOptions options) {
        this.options = Objects.requireNonNull(options, "options");
        return this;
    }

    /**
     * Opens the connection: as {@link HttpClient#webSocket(URI, WebSocketOptions, WebSocketHandler)},
     * with the fields added here.
     */
    public CompletableFuture<WebSocketSession> connect(WebSocketHandler handler) {
        return WebSocketHandshake.open(client, uri, options, handler, fields.toString());
    }
}
