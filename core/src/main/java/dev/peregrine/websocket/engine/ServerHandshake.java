package dev.peregrine.websocket.engine;

import dev.peregrine.Request;
import dev.peregrine.Handshake;

/**
 * The {@link Handshake} {@link WebSocketRoute} hands to {@code WebSocketHandler.onHandshake}: the
 * request, the fields added for the {@code 101} (each checked at the call by {@link HandshakeFields}
 * and kept as {@code "Name: value\r\n"} lines), and the session's attachment. Closed once the
 * callback returns, so a kept reference cannot write into a later head.
 *
 * <p>Thread: the loop, during the callback.
 */
final class ServerHandshake implements Handshake {
    /** Bytes of added fields the 101 may carry: the whole head must fit the loop's write buffer. */
    static final int MAX_FIELDS = 8 * 1024;

    private final Request request;
    private StringBuilder fields;
    private Object attachment;
    private boolean over;

    ServerHandshake(Request request) {
        this.request = request;
    }

    @Override
    public Request request() {
        live();
        return request;
    }

    @Override
    public Handshake header(String name, String value) {
        live();
        HandshakeFields.check(name, value);
        if (fields == null) {
            fields = new StringBuilder(64);
        }
        if (fields.length() + name.length() + value.length() + 4 > MAX_FIELDS) {
            throw new IllegalArgumentException("the fields added to the 101 exceed " + MAX_FIELDS + " bytes");
        }
        fields.append(name).append(": ").append(value).append("\r\n");
        return this;
    }

    @Override
    public Handshake attach(Object attachment) {
        live();
        this.attachment = attachment;
        return this;
    }

    private void live() {
        if (over) {
            throw new IllegalStateException("the handshake is over: use the Handshake during onHandshake only");
        }
    }

    /** Ends the callback's use of this object. */
    void end() {
        over = true;
    }

    /** The added fields as head lines, or "" when none. */
    CharSequence fields() {
        return fields == null ? "" : fields;
    }

    Object attachment() {
        return attachment;
    }
}
