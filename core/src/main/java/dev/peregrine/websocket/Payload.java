package dev.peregrine.websocket;

import java.nio.ByteBuffer;

/**
 * A message's or a control frame's payload as {@link dev.peregrine.WebSocketHandler} callbacks see it: a view on
 * bytes the server owns (the loop's read buffer, or the connection's message buffer), unmasked and,
 * for text, already checked as UTF-8. <b>Valid only during the callback</b>: copy what must outlive it
 * ({@link #bytes()}, {@link #text()}, {@link #copyTo}). Echoing it with
 * {@link WebSocketSession#send(Payload)} from the callback copies it straight into the output.
 *
 * <p>Thread: the connection's loop, during the callback.
 */
public interface Payload {
    /** Length in bytes. */
    int length();

    /** Byte {@code index} (0-based). */
    byte get(int index);

    /** Whether this is a text message (UTF-8, validated). */
    boolean isText();

    /** Copies the bytes into {@code dst} at its position, advancing it. */
    void copyTo(ByteBuffer dst);

    /** Copies the bytes into {@code dst} from {@code offset}. */
    void copyTo(byte[] dst, int offset);

    /** A copy of the bytes. */
    default byte[] bytes() {
        byte[] b = new byte[length()];
        copyTo(b, 0);
        return b;
    }

    /** The bytes decoded as UTF-8 (a new {@code String}). */
    default String text() {
        return new String(bytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
