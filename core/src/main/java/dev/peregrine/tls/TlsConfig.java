package dev.peregrine.tls;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * What an HTTPS listener serves: one or more {@link Identity identities} (certificate chain and
 * private key, each for a set of server names), the JSSE provider, the protocol versions and the
 * handshake timeout. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code
 * TlsConfig tls = TlsConfig.builder()
 *         .pem(Path.of("chain.pem"), Path.of("key.pem"))                   // the default identity
 *         .pkcs12(Path.of("other.p12"), "secret".toCharArray(), "other.example")  // chosen by SNI
 *         .provider(TlsConfig.Provider.BOUNCY_CASTLE)
 *         .build();
 * Server.builder().port(8080).https(8443, tls)...
 * }</pre>
 *
 * <p><b>Choosing a certificate (SNI, RFC 6066 section 3).</b> The identity whose names contain the
 * client's server name (exactly, or by a {@code *.} wildcard covering one label) and whose key fits
 * the handshake is used; a client sending no name, or a name no identity lists, gets the first
 * identity that fits.
 */
public final class TlsConfig {
    /** The JSSE implementation behind the {@link javax.net.ssl.SSLEngine}s. */
    public enum Provider {
        /** The JDK's own (SunJSSE). */
        JDK,
        /**
         * Bouncy Castle's JSSE ({@code bctls-jdk18on}, an optional dependency that must be on the class
         * path), used through provider instances: nothing is installed in {@link java.security.Security}.
         */
        BOUNCY_CASTLE
    }

    /** One certificate chain (leaf first) with its private key, served for {@code serverNames}. */
    public static final class Identity {
        private final X509Certificate[] chain;
        private final PrivateKey key;
        private final List<String> serverNames;

        Identity(X509Certificate[] chain, PrivateKey key, List<String> serverNames) {
            if (chain.length == 0) {
                throw new IllegalArgumentException("empty certificate chain");
            }
            if (!chain[0].getPublicKey().getAlgorithm().equals(key.getAlgorithm())) {
                throw new IllegalArgumentException("private key (" + key.getAlgorithm()
                        + ") does not match the certificate's public key (" + chain[0].getPublicKey().getAlgorithm() + ")");
            }
            this.chain = chain.clone();
            this.key = key;
            this.serverNames = List.copyOf(serverNames);
        }

        /** The chain, leaf first (a copy). */
        public X509Certificate[] chain() {
            return chain.clone();
        }

        X509Certificate[] chainShared() {
            return chain;
        }

        public PrivateKey key() {
            return key;
        }

        /** Names (lower case, {@code *.} wildcards allowed) this identity is chosen for by SNI. */
        public List<String> serverNames() {
            return serverNames;
        }
    }

    private final Provider provider;
    private final List<Identity> identities;
    private final String[] protocols;
    private final long handshakeTimeoutMillis;

    private TlsConfig(Builder b) {
        if (b.identities.isEmpty()) {
            throw new IllegalStateException("TlsConfig needs at least one certificate and key");
        }
        this.provider = b.provider;
        this.identities = Collections.unmodifiableList(new ArrayList<>(b.identities));
        this.protocols = b.protocols.clone();
        this.handshakeTimeoutMillis = b.handshakeTimeoutMillis;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A JDK-provider configuration serving a fresh self-signed certificate for localhost, 127.0.0.1 and
     * ::1 (development only). Clients trust it through {@link #certificate()} (an
     * {@code X509Certificate} for a trust store) or {@link #writeCertificatePem} (for
     * {@code curl --cacert}).
     *
     * @throws IllegalStateException naming {@code org.bouncycastle:bcpkix-jdk18on} when Bouncy Castle,
     *     which makes the certificate, is not on the class path
     */
    public static TlsConfig selfSigned() {
        requireBouncyCastle();
        DevCertificate cert = DevCertificate.generate();
        return builder().identity(cert.chain(), cert.privateKey()).build();
    }

    /**
     * Fails with a message that says what to add when Bouncy Castle's PKIX library (which builds the
     * certificate) is not on the class path, instead of a bare {@code NoClassDefFoundError}. It must run
     * before {@link DevCertificate} is loaded: that class's verification already needs Bouncy Castle.
     */
    private static void requireBouncyCastle() {
        try {
            Class.forName("org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder", false,
                    TlsConfig.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException("a self-signed development certificate needs Bouncy Castle on the"
                    + " class path: add the dependency org.bouncycastle:bcpkix-jdk18on (1.84), or configure"
                    + " a real certificate with TlsConfig.builder().identity(...)", e);
        }
    }

    /** The certificate served by default: the leaf of the first identity. */
    public X509Certificate certificate() {
        return identities.get(0).chainShared()[0];
    }

    /** Writes {@link #certificate()} as PEM to {@code file} (for {@code curl --cacert file}); returns {@code file}. */
    public Path writeCertificatePem(Path file) throws IOException {
        try {
            String base64 = java.util.Base64.getMimeEncoder(64, "\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                    .encodeToString(certificate().getEncoded());
            Files.writeString(file, "-----BEGIN CERTIFICATE-----\n" + base64 + "\n-----END CERTIFICATE-----\n",
                    java.nio.charset.StandardCharsets.US_ASCII);
            return file;
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException("certificate cannot be encoded", e);
        }
    }

    public Provider provider() {
        return provider;
    }

    /** The identities, the default (first) one first. */
    public List<Identity> identities() {
        return identities;
    }

    /** Protocol versions enabled, e.g. {@code TLSv1.3, TLSv1.2} (a copy). */
    public String[] protocols() {
        return protocols.clone();
    }

    /** Longest time from accept to a finished handshake before the connection is closed, ms. */
    public long handshakeTimeoutMillis() {
        return handshakeTimeoutMillis;
    }

    /** Collects identities and settings. Not thread-safe. */
    public static final class Builder {
        private Provider provider = Provider.JDK;
        private final List<Identity> identities = new ArrayList<>();
        private String[] protocols = {"TLSv1.3", "TLSv1.2"};
        private long handshakeTimeoutMillis = 10_000;

        Builder() {
        }

        /** JSSE provider. Default {@link Provider#JDK}. */
        public Builder provider(Provider provider) {
            this.provider = provider;
            return this;
        }

        /**
         * Adds an identity from a chain (leaf first) and its key. The first identity added is the
         * default; {@code serverNames} are the SNI names it is chosen for (none: only as default).
         */
        public Builder identity(X509Certificate[] chain, PrivateKey key, String... serverNames) {
            List<String> names = new ArrayList<>();
            for (String n : serverNames) {
                names.add(n.toLowerCase(java.util.Locale.ROOT));
            }
            identities.add(new Identity(chain, key, names));
            return this;
        }

        /** Adds an identity from PEM files: a certificate chain and a PKCS#8 key (RSA or EC). */
        public Builder pem(Path certificateChain, Path privateKey, String... serverNames) {
            try {
                return identity(PemFiles.readCertificates(Files.readString(certificateChain)),
                        PemFiles.readPrivateKey(Files.readString(privateKey)), serverNames);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + certificateChain + " or " + privateKey, e);
            }
        }

        /** Adds an identity from the first key entry of a PKCS#12 file. */
        public Builder pkcs12(Path file, char[] password, String... serverNames) {
            try (InputStream in = Files.newInputStream(file)) {
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(in, password);
                for (Enumeration<String> aliases = ks.aliases(); aliases.hasMoreElements(); ) {
                    String alias = aliases.nextElement();
                    if (ks.isKeyEntry(alias)) {
                        Certificate[] certs = ks.getCertificateChain(alias);
                        X509Certificate[] chain = new X509Certificate[certs.length];
                        for (int i = 0; i < certs.length; i++) {
                            chain[i] = (X509Certificate) certs[i];
                        }
                        return identity(chain, (PrivateKey) ks.getKey(alias, password), serverNames);
                    }
                }
                throw new IllegalArgumentException(file + " holds no private key entry");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException("cannot load PKCS#12 " + file + ": " + e.getMessage(), e);
            }
        }

        /** Protocol versions to enable. Default TLSv1.3 and TLSv1.2. */
        public Builder protocols(String... protocols) {
            if (protocols.length == 0) {
                throw new IllegalArgumentException("no protocol enabled");
            }
            this.protocols = protocols.clone();
            return this;
        }

        /** Longest time a handshake may take. Default 10 s. */
        public Builder handshakeTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("handshake timeout must be positive: " + timeout);
            }
            this.handshakeTimeoutMillis = timeout.toMillis();
            return this;
        }

        public TlsConfig build() {
            return new TlsConfig(this);
        }
    }
}
