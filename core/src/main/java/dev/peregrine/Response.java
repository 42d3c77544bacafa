package dev.peregrine;

import java.nio.ByteBuffer;

/**
 * The response being built for one request. Nothing is written until the handler returns; then the
 * status line, {@code Server}, {@code Date}, the headers set here, {@code Content-Length} and the body
 * are appended to the loop's output in one go.
 *
 * <p>The server owns the framing headers: {@code Content-Length}, {@code Transfer-Encoding},
 * {@code Connection} and {@code Date} set through {@link #header} are rejected with
 * {@link IllegalArgumentException}.
 *
 * <p><b>Body references.</b> {@code body(byte[])}, {@code body(ByteBuffer)} and
 * {@code body(CharSequence)} keep a reference, not a copy: the object must not change until the
 * handler returns. Passing a constant is the fast, allocation-free way to answer.
 *
 * <p>Valid only while the handler runs; thread: the event loop thread running the handler.
 */
public interface Response {
    /** Sets the status code (100–999; default 200). */
    Response status(int code);

    /** Adds a header field. Name and value must be visible ASCII (value may hold spaces and tabs). */
    Response header(String name, CharSequence value);

    /** Sets {@code Content-Type}. */
    Response contentType(CharSequence type);

    /** Uses {@code bytes} as the body. */
    Response body(byte[] bytes);

    /** Uses the remaining bytes of {@code body} as the body (its position is not moved). */
    Response body(ByteBuffer body);

    /** Uses {@code text}, encoded as UTF-8, as the body. */
    Response body(CharSequence text);

    /** A {@code text/plain; charset=utf-8} body. */
    Response text(CharSequence text);

    /** An {@code application/json} body; {@code json} must already be JSON. */
    Response json(CharSequence json);
}
