package dev.peregrine.tls.engine;

import dev.peregrine.tls.TlsConfig;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.jsse.provider.BouncyCastleJsseProvider;

import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The only class that names Bouncy Castle's JSSE: loaded when {@link TlsConfig.Provider#BOUNCY_CASTLE}
 * is chosen, so core runs without {@code bctls} on the class path otherwise. Providers are passed as
 * instances ({@code new BouncyCastleJsseProvider(new BouncyCastleProvider())}); nothing is added to
 * {@link java.security.Security}.
 */
final class BouncyCastleJsse {
    /**
     * Bouncy Castle logs through JUL: INFO lines for ordinary events (each provider and context it
     * builds), and a WARNING per entry of the JDK's {@code jdk.certpath.disabledAlgorithms} security
     * property it cannot parse (e.g. {@code SHA1 jdkCA & usage TLSServer}, present in every recent
     * JDK) — noise, since those entries concern certificate paths this server does not validate.
     * Unless the application configured these loggers itself, the first is raised to WARNING and the
     * second to SEVERE so a server's output stays quiet. Held strongly: JUL keeps loggers only weakly.
     */
    private static final Logger BC_JSSE_LOG = Logger.getLogger("org.bouncycastle.jsse");
    private static final Logger BC_CONSTRAINTS_LOG =
            Logger.getLogger("org.bouncycastle.jsse.provider.DisabledAlgorithmConstraints");

    static {
        if (BC_JSSE_LOG.getLevel() == null) {
            BC_JSSE_LOG.setLevel(Level.WARNING);
        }
        if (BC_CONSTRAINTS_LOG.getLevel() == null) {
            BC_CONSTRAINTS_LOG.setLevel(Level.SEVERE);
        }
    }

    private BouncyCastleJsse() {
    }

    static SSLContext context(KeyManager keyManager) throws GeneralSecurityException {
        BouncyCastleJsseProvider provider = new BouncyCastleJsseProvider(new BouncyCastleProvider());
        SSLContext ctx = SSLContext.getInstance("TLS", provider);
        ctx.init(new KeyManager[]{keyManager}, null, new SecureRandom());
        return ctx;
    }
}
