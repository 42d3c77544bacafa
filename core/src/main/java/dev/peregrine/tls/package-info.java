/**
 * HTTPS: TLS 1.3 and 1.2 between the socket and {@link dev.peregrine.loop.Connection}, driven
 * by a non-blocking {@link javax.net.ssl.SSLEngine} from the JDK or from Bouncy Castle's JSSE.
 *
 * <pre>
 *   transport socket --&gt; TlsEndpoint (unwrap into the connection's buffer) --&gt; Connection
 *   transport socket &lt;-- TlsEndpoint (wrap the batch into records, one write) &lt;-- Connection
 * </pre>
 * <ul>
 *   <li>{@link dev.peregrine.tls.TlsConfig} — what to serve: identities (chain + key, from PEM or
 *       PKCS#12, each for SNI names), provider, protocol versions, handshake timeout.</li>
 *   <li>{@link dev.peregrine.tls.TlsContext} — the {@code EndpointLayer} of an HTTPS listener: the
 *       SSL context, engine parameters (ALPN: the server's protocols, then {@code http/1.1}) and the delegated-task executor.</li>
 *   <li>{@code TlsEndpoint} — one connection's engine and its pooled network buffers.</li>
 *   <li>{@code SniKeyManager} — picks the certificate from the client's server name.</li>
 *   <li>{@link dev.peregrine.tls.PemFiles}, {@link dev.peregrine.tls.DevCertificate} — key files
 *       and self-signed development certificates.</li>
 * </ul>
 *
 * <p><b>Why in core, with Bouncy Castle optional.</b> The builder's {@code https(port, TlsConfig)}
 * belongs in the server API, and the JDK provider needs nothing beyond the JDK, so TLS lives in core.
 * Bouncy Castle ({@code bctls}, {@code bcpkix}) is an {@code <optional>} dependency: only
 * {@code BouncyCastleJsse} and {@link dev.peregrine.tls.DevCertificate} name its classes, and they
 * are loaded only when Bouncy Castle is chosen or a development certificate is made. Applications
 * that want either add the jars themselves.
 */
package dev.peregrine.tls;
