package dev.peregrine.form;

/**
 * A request body its reader cannot read: one that breaks its format (a multipart body truncated,
 * without its boundary, with a part lacking {@code Content-Disposition: form-data; name=...}), answered
 * {@code 400 Bad Request}; or one whose {@code Content-Type} is not what the reader reads
 * ({@code multipart()}, {@code form()} or {@code bodyAs} on another type), answered
 * {@code 415 Unsupported Media Type} (RFC 9110 §15.5.16). The client's mistake either way: uncaught,
 * the server answers {@link #status()} (no stack trace, one DEBUG line). The message says what was wrong.
 */
public final class BadFormException extends IllegalStateException {
    private static final long serialVersionUID = 1L;
    private final int status;

    /** A malformed body: 400. */
    public BadFormException(String message) {
        this(400, message);
    }

    /** @param status 400 (malformed) or 415 (a Content-Type the reader cannot read) */
    public BadFormException(int status, String message) {
        super(message);
        if (status != 400 && status != 415) {
            throw new IllegalArgumentException("status must be 400 or 415: " + status);
        }
        this.status = status;
    }

    /** A body whose Content-Type {@code reader} cannot read: 415. */
    public static BadFormException unsupportedType(String reader, CharSequence contentType) {
        return new BadFormException(415, reader + " cannot read a body of " + (contentType == null ? "no Content-Type" : "Content-Type " + contentType));
    }

    /** The status to answer with: 400 or 415. */
    public int status() {
        return status;
    }
}
