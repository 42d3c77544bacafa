package dev.peregrine.form;

/**
 * A form (or multipart body) past one of its limits: a handler should answer {@code 413 Content Too
 * Large} (RFC 9110 §15.5.14), which {@link #status()} gives.
 */
public final class FormLimitException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public FormLimitException(String message) {
        super(message);
    }

    /** The status to answer with: 413. */
    public int status() {
        return 413;
    }
}
