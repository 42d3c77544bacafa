package dev.peregrine.form;

/**
 * A form body that breaks its format (a multipart body truncated, without its boundary, with a part
 * lacking {@code Content-Disposition: form-data; name=...}): the client's mistake, so a handler should
 * answer {@code 400 Bad Request}, which {@link #status()} gives. The message says what was wrong.
 */
public final class BadFormException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public BadFormException(String message) {
        super(message);
    }

    /** The status to answer with: 400. */
    public int status() {
        return 400;
    }
}
