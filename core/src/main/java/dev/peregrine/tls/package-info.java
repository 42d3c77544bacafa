/**
 * HTTPS configuration: what a listener serves and how a client trusts.
 *
 * <ul>
 *   <li>{@link dev.peregrine.tls.TlsConfig} — identities (chain + key, from PEM or PKCS#12, each for
 *       SNI names), provider (the JDK's or Bouncy Castle's JSSE), protocol versions, handshake
 *       timeout. Given to {@code Server.Builder.https(port, TlsConfig)}.</li>
 *   <li>{@link dev.peregrine.tls.PemFiles}, {@link dev.peregrine.tls.DevCertificate} — key files
 *       and self-signed development certificates.</li>
 * </ul>
 *
 * <p>The machinery that runs TLS on a connection (the {@code SSLEngine} between the socket and the
 * connection, SNI key selection, the client layer) is in {@code dev.peregrine.tls.engine}, which
 * the module does not export.
 *
 * <p><b>Why in core, with Bouncy Castle optional.</b> The builder's {@code https(port, TlsConfig)}
 * belongs in the server API, and the JDK provider needs nothing beyond the JDK, so TLS lives in core.
 * Bouncy Castle ({@code bctls}, {@code bcpkix}) is an {@code <optional>} dependency
 * ({@code requires static} in the module descriptor): only {@code BouncyCastleJsse} and
 * {@link dev.peregrine.tls.DevCertificate} name its classes, and they are loaded only when Bouncy
 * Castle is chosen or a development certificate is made. Applications that want either add the jars
 * themselves.
 */
package dev.peregrine.tls;
