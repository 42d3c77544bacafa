package dev.peregrine.websocket.engine;

import dev.peregrine.loop.Protocol;
import dev.peregrine.WebSocketHandler;
import dev.peregrine.WebSocketOptions;

import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What the client module ({@code dev.peregrine.client}, the only module this package is exported to)
 * needs of the engine to speak WebSocket after its own handshake: the accept value it must check, the
 * permessage-deflate offer, and the same {@link WebSocketProtocol} the server runs, in the client's role
 * (frames masked with a fresh key each, a masked frame from the server is 1002; see
 * {@link WebSocketProtocol}).
 *
 * <p>Thread: any (stateless).
 */
public final class WebSocketClientEngine {
    private WebSocketClientEngine() {
    }

    /** {@code Sec-WebSocket-Accept} for {@code key}: base64(SHA-1(key + the RFC's GUID)) (RFC 6455 §4.1). */
    public static String accept(String key) {
        return WebSocketRoute.accept(key);
    }

    /** The {@code Sec-WebSocket-Extensions} value a client offers for permessage-deflate. */
    public static String deflateOffer() {
        return DeflateParams.CLIENT_OFFER;
    }

    /**
     * The protocol to switch the connection to once the {@code 101} is checked: {@code extensions} is the
     * server's {@code Sec-WebSocket-Extensions} (null: none). Throws IllegalArgumentException saying why
     * when that answer cannot be accepted (RFC 7692 §7.1: the client fails the connection).
     */
    public static Protocol protocol(WebSocketOptions options, WebSocketHandler handler, String extensions, String subprotocol,
                                    String path, InetSocketAddress remote) {
        DeflateParams deflate = DeflateParams.fromResponse(extensions);
        WsSession session = new WsSession(path, Map.of(), subprotocol, deflate != null, remote);
        return new WebSocketProtocol(options, handler, deflate, session, new MaskSource());
    }
}
