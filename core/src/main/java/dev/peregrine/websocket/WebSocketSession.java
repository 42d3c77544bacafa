package dev.peregrine.websocket;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One WebSocket connection, as its handler and other threads see it.
 *
 * <p><b>Threads.</b> Every method may be called from any thread. A send from the connection's own
 * callback goes straight into the connection's output; from anywhere else it is copied and queued on
 * the connection's event loop (its task queue), so sends from one thread leave in the order they
 * were made. A {@link SendCallback} hears, on the loop, once the frame is handed to the connection
 * or that it was not (the session had closed). Nothing blocks: while the peer reads slower than
 * messages are sent, output waits in the connection and reading from that peer pauses
 * ({@code maxPendingOutput}).
 *
 * <p><b>Messages.</b> {@code sendText}/{@code sendBinary} send a whole message (compressed when
 * permessage-deflate was negotiated and the message is at least the route's
 * {@code compressionThreshold}); the {@code ...Part} forms send a message in fragments (uncompressed),
 * and no whole message may be sent while one is open ({@link IllegalStateException}).
 * {@link PreparedMessage}s are encoded once for many sessions (broadcast).
 */
public interface WebSocketSession {
    /** The request path of the handshake. */
    String path();

    /** A path parameter of the route ({@code /ws/{room}}), or null. */
    String pathParam(String name);

    /** The negotiated subprotocol, or null. */
    String subprotocol();

    /** Whether permessage-deflate was negotiated. */
    boolean compressed();

    InetSocketAddress remoteAddress();

    /** Whether the session is open: no close frame sent or received, not disconnected. */
    boolean isOpen();

    /** An object the application keeps with the session. */
    Object attachment();

    void attach(Object attachment);

    void sendText(CharSequence text);

    void sendText(CharSequence text, SendCallback callback);

    void sendBinary(byte[] data);

    void sendBinary(byte[] data, SendCallback callback);

    /** Sends {@code data}'s remaining bytes (copied before this returns; its position is not moved). */
    void sendBinary(ByteBuffer data, SendCallback callback);

    /** Sends a received payload back as a message of the same kind (text or binary): an echo. */
    void send(Payload payload, SendCallback callback);

    default void send(Payload payload) {
        send(payload, null);
    }

    /** Sends a message encoded once for many sessions (never compressed). */
    void send(PreparedMessage message, SendCallback callback);

    /** One fragment of a text message; {@code last} ends the message. */
    void sendTextPart(CharSequence part, boolean last, SendCallback callback);

    /** One fragment of a binary message; {@code last} ends the message. */
    void sendBinaryPart(byte[] part, boolean last, SendCallback callback);

    /** Sends a ping (at most 125 bytes); its pong reaches {@link dev.peregrine.WebSocketHandler#onPong}. */
    void ping(byte[] data);

    /** Starts the close handshake with 1000. */
    default void close() {
        close(1000, "");
    }

    /**
     * Starts the close handshake: sends a close frame with {@code code} and {@code reason} (at most
     * 123 UTF-8 bytes), then waits up to the route's {@code closeTimeout} for the peer's.
     *
     * @throws IllegalArgumentException for a code an endpoint may not send (RFC 6455 §7.4) or a
     *     reason too long
     */
    void close(int code, String reason);
}
