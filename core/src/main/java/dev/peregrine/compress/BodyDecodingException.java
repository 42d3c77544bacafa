package dev.peregrine.compress;

import java.io.IOException;

/**
 * A request body whose Content-Encoding could not be decoded: {@link #status()} is the answer it
 * deserves, 413 when the decoded bytes would pass the cap, 400 when the coded stream is corrupt or
 * truncated, 415 for a coding the server does not decode (RFC 9110 §15.5.16).
 */
public final class BodyDecodingException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;

    public BodyDecodingException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** 400, 413 or 415. */
    public int status() {
        return status;
    }
}
