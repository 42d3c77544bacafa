package dev.peregrine.websocket.engine;

import dev.peregrine.buffer.HttpTokens;

import java.util.Locale;

/**
 * The rule for extra header fields of a WebSocket handshake, the server's {@code 101}
 * ({@link dev.peregrine.Handshake#header}) and the client's {@code GET} alike, checked at the
 * call: the fields the handshake itself writes may not be added (RFC 6455 §4.1, §4.2.2: {@code Upgrade},
 * {@code Connection}, every {@code Sec-WebSocket-*}), nor framing fields (neither message has content,
 * RFC 9110 §15.2.2), nor {@code Host} (the client's, from the URI); a name is a token and a value has
 * no control or non-ASCII character (RFC 9110 §5.1, §5.5), so nothing can split the head.
 *
 * <p>Thread: any (no state).
 */
public final class HandshakeFields {
    private HandshakeFields() {
    }

    /** Throws IllegalArgumentException saying why {@code name: value} may not be added. */
    public static void check(String name, String value) {
        if (name == null || value == null) {
            throw new NullPointerException("name and value must not be null");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty header name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 0xFF || !HttpTokens.TCHAR[c]) {
                throw new IllegalArgumentException("invalid header name: " + name);
            }
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.equals("upgrade") || lower.equals("connection") || lower.startsWith("sec-websocket-")) {
            throw new IllegalArgumentException(name + " belongs to the WebSocket handshake (RFC 6455 §4): "
                    + "set subprotocols and compression through WebSocketOptions");
        }
        if (lower.equals("content-length") || lower.equals("transfer-encoding") || lower.equals("host")) {
            throw new IllegalArgumentException(name + " is set by the handshake itself");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0x7E || !HttpTokens.FIELD_VALUE[c]) {
                throw new IllegalArgumentException("invalid character in the value of " + name + " at index " + i
                        + (c > 0x7E ? " (non-ASCII: encode it first)" : " (control character)"));
            }
        }
    }
}
