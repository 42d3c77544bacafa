/**
 * TLS on the connection layer (internal): TLS 1.3 and 1.2 between the socket and
 * {@link dev.peregrine.loop.Connection}, driven by a non-blocking {@link javax.net.ssl.SSLEngine}
 * from the JDK or from Bouncy Castle's JSSE.
 *
 * <pre>
 *   transport socket --&gt; TlsEndpoint (unwrap into the connection's buffer) --&gt; Connection
 *   transport socket &lt;-- TlsEndpoint (wrap the batch into records, one write) &lt;-- Connection
 * </pre>
 * <ul>
 *   <li>{@link dev.peregrine.tls.engine.TlsContext} — the {@code EndpointLayer} of an HTTPS
 *       listener: the SSL context, engine parameters (ALPN: the server's protocols, then
 *       {@code http/1.1}) and the delegated-task executor.</li>
 *   <li>{@link dev.peregrine.tls.engine.TlsClientLayer} — the {@code EndpointLayer} of one outbound
 *       connection: SNI, hostname verification, ALPN.</li>
 *   <li>{@code TlsEndpoint} — one connection's engine: unwrap on read, wrap on write; with
 *       {@code TlsHandshake} (handshake under way, its timer, delegated tasks), {@code TlsClosing}
 *       (close_notify, FIN, the alert after an error) and {@code TlsBuffers} (its pooled network
 *       buffers).</li>
 *   <li>{@code SniKeyManager} — picks the certificate from the client's server name.</li>
 *   <li>{@code BouncyCastleJsse} — the only class naming Bouncy Castle's JSSE.</li>
 * </ul>
 *
 * <p>Not exported by the module: {@code dev.peregrine.client} is the only other module that reads it.
 */
package dev.peregrine.tls.engine;
