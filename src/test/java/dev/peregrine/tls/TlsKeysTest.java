package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.net.ssl.SSLSocket;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keys and certificates from PEM and PKCS#12 files, RSA and EC, as the builder and the example app load them. */
class TlsKeysTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"RSA", "EC"})
    void pemChainAndPkcs8KeyServe(String algorithm) throws Exception {
        DevCertificate cert = DevCertificate.generate(algorithm, "localhost", "127.0.0.1");
        Path chain = dir.resolve("chain.pem");
        Path key = dir.resolve("key.pem");
        // text around the blocks is allowed (RFC 7468 section 2), as openssl writes it
        Files.writeString(chain, "subject=CN=localhost\n" + cert.certificatePem() + TlsTesting.CERT.certificatePem());
        Files.writeString(key, cert.privateKeyPem());
        TlsConfig tls = TlsConfig.builder().pem(chain, key).build();
        assertEquals(2, tls.identities().get(0).chain().length);
        assertEquals(algorithm, tls.identities().get(0).key().getAlgorithm());
        assertServes(tls, cert.certificate());

        // the example app's flags load the same files
        TlsConfig fromApp = PlaintextApp.tlsConfig(new String[]{"--tls-cert", chain.toString(), "--tls-key=" + key, "--tls-provider", "bc"});
        assertEquals(TlsConfig.Provider.BOUNCY_CASTLE, fromApp.provider());
        assertServes(fromApp, cert.certificate());
    }

    @Test
    void pkcs12Serves() throws Exception {
        DevCertificate cert = DevCertificate.generate("RSA", "localhost");
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        char[] password = "secret".toCharArray();
        ks.setKeyEntry("server", cert.privateKey(), password, cert.chain());
        Path p12 = dir.resolve("server.p12");
        try (OutputStream out = Files.newOutputStream(p12)) {
            ks.store(out, password);
        }
        assertServes(TlsConfig.builder().pkcs12(p12, password).build(), cert.certificate());
    }

    @Test
    void legacyAndMismatchedKeysAreRefusedWithAReason() throws Exception {
        Path chain = dir.resolve("chain.pem");
        Files.writeString(chain, TlsTesting.CERT.certificatePem());
        Path legacy = dir.resolve("rsa.pem");
        Files.writeString(legacy, "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TlsConfig.builder().pem(chain, legacy));
        assertTrue(e.getMessage().contains("openssl pkcs8"), e.getMessage());
        Path otherKey = dir.resolve("other.pem");
        Files.writeString(otherKey, DevCertificate.generate("RSA", "localhost").privateKeyPem());
        assertThrows(IllegalArgumentException.class, () -> TlsConfig.builder().pem(chain, otherKey));
        assertThrows(IllegalStateException.class, () -> TlsConfig.builder().build());
    }

    @Test
    void devCertificateNamesLocalhostAndLoopback() throws Exception {
        X509Certificate c = TlsTesting.CERT.certificate();
        String sans = String.valueOf(c.getSubjectAlternativeNames());
        assertTrue(sans.contains("localhost") && sans.contains("127.0.0.1"), sans);
        c.checkValidity();
        c.verify(c.getPublicKey()); // self-signed
    }

    private static void assertServes(TlsConfig tls, X509Certificate expected) throws Exception {
        try (Server server = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).https(0, tls).start();
             SSLSocket s = TlsTesting.connect(server.httpsPort(), "TLSv1.3", "localhost", expected)) {
            assertEquals(expected, s.getSession().getPeerCertificates()[0]);
        }
    }
}
