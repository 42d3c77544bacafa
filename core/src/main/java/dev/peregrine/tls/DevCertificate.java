package dev.peregrine.tls;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;

/**
 * A self-signed certificate for development and tests, valid for {@code localhost}, {@code 127.0.0.1}
 * and {@code ::1} (or the names given) as subject alternative names (RFC 5280 section 4.2.1.6;
 * clients match SAN entries, not the subject CN, RFC 6125 section 6.4.4). Built with Bouncy Castle's
 * {@code bcpkix} (an optional dependency of core, loaded only when this class is used). Never use it
 * in production: clients trust it only when told to, e.g. {@code curl --cacert cert.pem}.
 */
public final class DevCertificate {
    private static final long VALIDITY_MILLIS = 30L * 24 * 3600 * 1000;

    private final X509Certificate certificate;
    private final PrivateKey privateKey;

    private DevCertificate(X509Certificate certificate, PrivateKey privateKey) {
        this.certificate = certificate;
        this.privateKey = privateKey;
    }

    /** An EC P-256 certificate for localhost, 127.0.0.1 and ::1. */
    public static DevCertificate generate() {
        return generate("EC", "localhost", "127.0.0.1", "::1");
    }

    /**
     * A certificate with a fresh key of {@code keyAlgorithm} ({@code "EC"}: P-256, {@code "RSA"}: 2048
     * bits) whose SAN lists {@code names} (IP literals become IP entries) and whose subject CN is the
     * first name.
     */
    public static DevCertificate generate(String keyAlgorithm, String... names) {
        try {
            KeyPairGenerator kpg = KeyPairGenerator.getInstance(keyAlgorithm);
            if (keyAlgorithm.equals("EC")) {
                kpg.initialize(new ECGenParameterSpec("secp256r1"));
            } else {
                kpg.initialize(2048);
            }
            KeyPair pair = kpg.generateKeyPair();
            X500Name subject = new X500Name("CN=" + names[0] + ",O=Peregrine development");
            long now = System.currentTimeMillis();
            X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject,
                    new BigInteger(64, new SecureRandom()).abs().add(BigInteger.ONE),
                    new Date(now - 60_000), new Date(now + VALIDITY_MILLIS), subject, pair.getPublic());
            GeneralName[] san = new GeneralName[names.length];
            for (int i = 0; i < names.length; i++) {
                boolean ip = names[i].indexOf(':') >= 0 || names[i].matches("[0-9.]+");
                san[i] = new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, names[i]);
            }
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(san));
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
            String signature = keyAlgorithm.equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
            X509Certificate cert = new JcaX509CertificateConverter()
                    .getCertificate(b.build(new JcaContentSignerBuilder(signature).build(pair.getPrivate())));
            return new DevCertificate(cert, pair.getPrivate());
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot make a development certificate: " + e.getMessage(), e);
        }
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** The chain to serve: the certificate alone. */
    public X509Certificate[] chain() {
        return new X509Certificate[]{certificate};
    }

    public PrivateKey privateKey() {
        return privateKey;
    }

    /** The certificate as PEM, e.g. for {@code curl --cacert}. */
    public String certificatePem() {
        try {
            return PemFiles.encode("CERTIFICATE", certificate.getEncoded());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The private key as PKCS#8 PEM. */
    public String privateKeyPem() {
        return PemFiles.encode("PRIVATE KEY", privateKey.getEncoded());
    }

    /** Writes {@link #certificatePem()} to {@code file}. */
    public void writeCertificate(Path file) throws IOException {
        Files.writeString(file, certificatePem());
    }
}
