package dev.peregrine;

import dev.peregrine.websocket.Payload;
import dev.peregrine.websocket.WebSocketSession;

/**
 * What a WebSocket route does with its connections ({@code Server.builder().websocket(path, handler)}).
 * One handler serves every connection of its route; each connection is a {@link WebSocketSession}.
 *
 * <p>Every callback runs on the connection's event loop thread, one at a time per connection, and
 * must not block; {@link Payload}s are views valid only during the callback. On a route with
 * {@link WebSocketOptions#execution execution(BLOCKING)} they run off the loop instead (a virtual
 * thread on JDK 21+, the server's blocking pool on 17), still one at a time per connection and in
 * order, and may block; their {@link Payload}s are copies the handler may keep. {@link #onHandshake}
 * runs on the loop either way. Pings are answered by
 * the server before {@link #onPing}; the close handshake is the server's too (a close frame is
 * answered with the same code). A callback that throws closes the connection with 1011 (one WARNING
 * line); the server carries on.
 *
 * <p>Order per connection: {@code onOpen}, then messages and control frames as they arrive, then
 * exactly one {@link #onClose}.
 */
public interface WebSocketHandler {
    /**
     * The handshake passed the server's checks (and the filters); the {@code 101} is not written yet.
     * Read the request, add fields to the {@code 101}, attach an object to the session
     * ({@link Handshake}). Runs on the loop, also on a BLOCKING route, and must not block. Throwing
     * answers {@code 500} instead of the {@code 101} (one WARNING line). A server's callback: the
     * client does not call it.
     */
    default void onHandshake(Handshake handshake) {
    }

    /** The handshake is done ({@code 101} is queued); the session may send at once. */
    default void onOpen(WebSocketSession session) {
    }

    /** A whole text message (fragments joined, decompressed, valid UTF-8). */
    default void onText(WebSocketSession session, Payload text) {
    }

    /** A whole binary message (fragments joined, decompressed). */
    default void onBinary(WebSocketSession session, Payload data) {
    }

    /** A ping arrived; its pong is already queued. */
    default void onPing(WebSocketSession session, Payload data) {
    }

    /** A pong arrived (an answer to {@link WebSocketSession#ping}, or unsolicited). */
    default void onPong(WebSocketSession session, Payload data) {
    }

    /**
     * The connection is over. {@code code} is the peer's close code (1005 when its close frame had
     * none), the code the server closed with (1002 protocol error, 1007 bad UTF-8, 1009 too big, 1001
     * idle or shutdown, 1011 a callback threw), or 1006 when the connection ended without a close
     * handshake. Called exactly once; sends fail from now on.
     */
    default void onClose(WebSocketSession session, int code, String reason) {
    }
}
