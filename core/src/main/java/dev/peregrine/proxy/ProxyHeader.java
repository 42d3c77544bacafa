package dev.peregrine.proxy;

import java.net.InetSocketAddress;

/**
 * One decoded PROXY protocol header (HAProxy's proxy-protocol.txt, v1 or v2): who the client really was.
 * Immutable; valid forever.
 *
 * <p>{@link #local()} is true when the header carries no client address to use: a v2 {@code LOCAL}
 * command (the proxy's own health check), v1 {@code UNKNOWN}, or a v2 {@code PROXY} with an unspecified
 * or {@code AF_UNIX} family. The spec then says to use the connection's own addresses, and
 * {@link #source()} and {@link #destination()} are null.
 *
 * @param version    1 (text) or 2 (binary)
 * @param local      whether the connection's own addresses stand (see above)
 * @param source     the original client's address and port, or null when {@code local}
 * @param destination the address and port the client connected to (the proxy's), or null when {@code local}
 * @param length     bytes the header took on the wire; the application's bytes follow it
 */
public record ProxyHeader(int version, boolean local, InetSocketAddress source, InetSocketAddress destination,
                          int length) {
}
