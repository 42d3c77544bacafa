/**
 * The PROXY protocol (HAProxy's proxy-protocol.txt, versions 1 and 2): {@link
 * dev.peregrine.proxy.ProxyHeaderDecoder} decodes the header a load balancer (HAProxy, nginx
 * {@code proxy_protocol}, AWS NLB, Envoy) writes before the client's bytes, into a {@link
 * dev.peregrine.proxy.ProxyHeader}.
 *
 * <p><b>Status:</b> the decoder is complete and tested at every split point and against malformed
 * input; it is not yet wired into connections. Accepting it per listener from trusted source
 * addresses and giving the client's address to {@code req.remoteAddress()} needs a hook before the
 * first request is parsed: a step in {@code loop.Connection} before the HTTP/1.1 protocol sees the
 * first byte (the connection layer landed while this decoder was written; the wiring is left to its
 * owner, issue 13), plus a per-listener setting of trusted source addresses. Depends on nothing
 * of Peregrine's.
 */
package dev.peregrine.proxy;
