/**
 * The HTTP/1.1 server as a protocol on the connection layer: {@link dev.peregrine.server.Http1ServerProtocol}
 * (one per connection: framing, dispatch, encoding, its timer phases), {@link dev.peregrine.server.ServerLoop}
 * (one per loop: the parser, views, encoder and router every connection of the loop shares; it makes the
 * protocols of accepted connections), {@link dev.peregrine.server.ServerSetup} (one per server), the
 * protocol switches (Upgrade, HTTP/2 preface, ALPN), and the per-loop operations hooks: request ids and
 * access log ({@code RequestTracer}), duration histograms, connection age, the blocked-loop watchdog.
 *
 * <p>Depends on {@code loop} (connections, timers), {@code offloop} (work off the loop), {@code http1}
 * (codecs) and {@code route}; nothing below depends on it.
 */
package dev.peregrine.server;
