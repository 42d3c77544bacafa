/**
 * The PROXY protocol (HAProxy's proxy-protocol.txt, versions 1 and 2), which a load balancer
 * (HAProxy {@code send-proxy-v2}, nginx {@code proxy_protocol}, AWS NLB, Envoy) writes before the
 * client's bytes so the server learns who the client really was.
 * <ul>
 *   <li>{@link dev.peregrine.proxy.ProxyProtocol}: the user's setting (trusted peers as
 *       {@link dev.peregrine.proxy.Cidr} blocks, the v2 length limit).</li>
 *   <li>{@link dev.peregrine.proxy.ProxyHeaderDecoder}: the pure, restartable decoder into a
 *       {@link dev.peregrine.proxy.ProxyHeader}.</li>
 *   <li>{@code dev.peregrine.proxy.engine.ProxyLayer} (internal): the listener's lowest endpoint layer;
 *       each accepted socket gets a {@code ProxyEndpoint} that reads the header before TLS or HTTP/1.1
 *       see a byte, then passes bytes through, and reports the header's client as the peer's address.</li>
 * </ul>
 * This package depends on nothing of Peregrine's; {@code proxy.engine} depends on {@code loop}.
 */
package dev.peregrine.proxy;
