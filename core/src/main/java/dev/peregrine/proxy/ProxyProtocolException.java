package dev.peregrine.proxy;

/**
 * A PROXY protocol header that is malformed, too long, or absent where one is required. The
 * connection that sent it must be closed (spec section 2: the receiver must not try to guess).
 * The message says what was wrong, for one DEBUG line; it never echoes the peer's bytes at length.
 */
public final class ProxyProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    public ProxyProtocolException(String message) {
        super(message, null, false, false);
    }
}
