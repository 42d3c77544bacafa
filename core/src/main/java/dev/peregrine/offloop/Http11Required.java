package dev.peregrine.offloop;

/**
 * Thrown into a handler that asks, over a stream of a multiplexed connection ({@link StreamHost}), for
 * what only HTTP/1.1 carries here: a response body written through {@code res.outputStream()}. Its
 * exchange then refuses the stream (HTTP/2: {@code RST_STREAM HTTP_1_1_REQUIRED}, RFC 9113 §8.7 and
 * §7), which clients such as curl answer by asking again over HTTP/1.1. One shared instance, without
 * a stack trace: it is an answer, not a failure. Thread: any.
 */
public final class Http11Required extends RuntimeException {
    public static final Http11Required INSTANCE = new Http11Required();

    private Http11Required() {
        super("res.outputStream() is not available over HTTP/2: the stream is refused with HTTP_1_1_REQUIRED", null, false, false);
    }
}
