package dev.peregrine;

/**
 * One connection's opening handshake as {@link WebSocketHandler#onHandshake} sees it, after the
 * server's checks passed and before the {@code 101} is written: the request to read, fields to add
 * to the {@code 101}, and an object to keep with the session to come.
 * <pre>{@code
 * .websocket("/ws/chat", new dev.peregrine.WebSocketHandler() {
 *     public void onHandshake(dev.peregrine.Handshake h) {
 *         String user = h.request().attribute("user");        // set by an auth filter
 *         h.attach(user).header("Set-Cookie", "seen=1; Path=/; HttpOnly");
 *     }
 * })
 * }</pre>
 *
 * <p>Thread: the connection's loop, during {@code onHandshake} only (also for a route with
 * {@code execution(BLOCKING)}): it must not block, and calls after it returns throw
 * {@link IllegalStateException}.
 */
public interface Handshake {
    /**
     * The handshake request: its header fields, path and query parameters, cookies and the
     * attributes filters set. A view valid during {@code onHandshake} only: copy what must outlive it
     * (or {@link #attach} it).
     */
    Request request();

    /**
     * Adds a field to the {@code 101} (a cookie, a custom field); fields with the same name are all sent.
     *
     * @throws IllegalArgumentException for a field the handshake owns ({@code Upgrade},
     *     {@code Connection}, {@code Sec-WebSocket-*}), a framing field ({@code Content-Length},
     *     {@code Transfer-Encoding}), a name that is not a token or a value with a control or
     *     non-ASCII character, or when the added fields would pass 8 KiB
     */
    Handshake header(String name, String value);

    /** Keeps {@code attachment} with the session: {@link dev.peregrine.websocket.WebSocketSession#attachment()} from {@code onOpen} on. */
    Handshake attach(Object attachment);
}
