package dev.peregrine;

import java.io.IOException;

/**
 * A request body streamed to its handler ({@link Request#bodyStream()}, a {@link Handlers#streaming}
 * listener) that the server stopped taking: a body without a length (HTTP/1.1 chunked, HTTP/2 without
 * {@code content-length}) whose running total passed {@code maxStreamedBodySize} ({@link #status()}
 * 413), or whose chunked framing broke mid-body (400), or whose HTTP/2 trailers passed the header list size
 * (431). Thrown by the body stream's reads after the
 * bytes that came before; a listener's exchange is answered with the status at once. The client's
 * mistake: uncaught, the server answers {@link #status()} (no stack trace, one DEBUG line), and over
 * HTTP/1.1 closes the connection after it (the rest of the body is not read).
 */
public final class RequestBodyException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;

    /** @param status 400 (malformed framing), 413 (too large) or 431 (trailer fields too large) */
    public RequestBodyException(int status, String message) {
        super(message);
        if (status != 400 && status != 413 && status != 431) {
            throw new IllegalArgumentException("status must be 400, 413 or 431: " + status);
        }
        this.status = status;
    }

    /** The status the request is answered with when the handler lets this through: 400, 413 or 431. */
    public int status() {
        return status;
    }
}
