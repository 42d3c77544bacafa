package dev.peregrine.tls.engine;

import dev.peregrine.tls.TlsConfig;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.StandardConstants;
import javax.net.ssl.X509ExtendedKeyManager;
import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECKey;
import java.util.List;
import java.util.Locale;

/**
 * Chooses the server's certificate during each handshake from the server name the client asked for
 * (SNI, RFC 6066 section 3), read from the engine's handshake session. Aliases are the identities'
 * indexes ({@code "0"}, {@code "1"}, ...). Server side only.
 *
 * <p>Thread: any (immutable); JSSE calls it on the thread running the handshake step, which may be a
 * delegated-task thread.
 */
final class SniKeyManager extends X509ExtendedKeyManager {
    private final List<TlsConfig.Identity> identities;

    SniKeyManager(List<TlsConfig.Identity> identities) {
        this.identities = identities;
    }

    @Override
    public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
        return choose(keyType, engine == null ? null : engine.getHandshakeSession());
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return choose(keyType, null);
    }

    private String choose(String keyType, SSLSession handshake) {
        String name = requestedHostName(handshake);
        if (name != null) {
            boolean named = false;
            for (int i = 0; i < identities.size(); i++) {
                TlsConfig.Identity id = identities.get(i);
                if (matches(id.serverNames(), name)) {
                    named = true;
                    if (fits(id, keyType)) {
                        return Integer.toString(i);
                    }
                }
            }
            if (named) {
                // The named identity has another key type: the provider asks again with its next one.
                return null;
            }
        }
        for (int i = 0; i < identities.size(); i++) {
            if (fits(identities.get(i), keyType)) {
                return Integer.toString(i);
            }
        }
        return null;
    }

    private static String requestedHostName(SSLSession handshake) {
        if (!(handshake instanceof ExtendedSSLSession)) {
            return null;
        }
        for (SNIServerName n : ((ExtendedSSLSession) handshake).getRequestedServerNames()) {
            if (n.getType() == StandardConstants.SNI_HOST_NAME) {
                return ((SNIHostName) n).getAsciiName().toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /** Exact match, or {@code *.example.com} for exactly one more label (RFC 6125 section 6.4.3). */
    static boolean matches(List<String> names, String host) {
        for (String n : names) {
            if (n.equals(host)) {
                return true;
            }
            if (n.startsWith("*.")) {
                int dot = host.indexOf('.');
                if (dot > 0 && host.substring(dot).equals(n.substring(1))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether the identity's key serves {@code keyType}. Providers name key types differently: the
     * JDK asks for {@code RSA}, {@code EC}, {@code RSASSA-PSS} (TLS 1.3 signature schemes) or
     * {@code EC_EC}; Bouncy Castle for {@code ECDHE_RSA}-style key-exchange names (TLS 1.2) and for
     * {@code EC/secp256r1}-style names that fix the curve (TLS 1.3 signature schemes, RFC 8446 section
     * 4.2.3).
     */
    static boolean fits(TlsConfig.Identity id, String keyType) {
        if (keyType == null) {
            return true;
        }
        String alg = id.key().getAlgorithm();
        if (alg.equals("RSA")) {
            return keyType.equals("RSA") || keyType.endsWith("_RSA");
        }
        if (alg.equals("EC")) {
            if (keyType.startsWith("EC/")) {
                return curveFits(id.key(), keyType.substring(3));
            }
            return keyType.equals("EC") || keyType.equals("ECDSA") || keyType.startsWith("EC_") || keyType.endsWith("_ECDSA");
        }
        return keyType.equals(alg);
    }

    /** Whether an EC key lies on {@code curve}, named {@code secpNNNr1} as in RFC 8446's signature schemes. */
    private static boolean curveFits(PrivateKey key, String curve) {
        if (!(key instanceof ECKey) || !curve.startsWith("secp") || !curve.endsWith("r1")) {
            return false;
        }
        try {
            int bits = Integer.parseInt(curve.substring(4, curve.length() - 2));
            return ((ECKey) key).getParams().getCurve().getField().getFieldSize() == bits;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
        return identities.stream().filter(id -> fits(id, keyType))
                .map(id -> Integer.toString(identities.indexOf(id))).toArray(String[]::new);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
        TlsConfig.Identity id = identity(alias);
        return id == null ? null : id.chain();
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
        TlsConfig.Identity id = identity(alias);
        return id == null ? null : id.key();
    }

    private TlsConfig.Identity identity(String alias) {
        try {
            int i = Integer.parseInt(alias);
            return i >= 0 && i < identities.size() ? identities.get(i) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
        return null;
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return null;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
        return null;
    }
}
