/**
 * The PROXY protocol on a listener's connections: {@link dev.peregrine.proxy.engine.ProxyLayer}, the
 * lowest endpoint layer, puts a {@code ProxyEndpoint} over each accepted socket, which reads and checks
 * the header before TLS or HTTP/1.1 see a byte. Internal: the server builds it from
 * {@link dev.peregrine.proxy.ProxyProtocol}. Depends on {@code loop} and on {@code proxy}'s decoder.
 */
package dev.peregrine.proxy.engine;
