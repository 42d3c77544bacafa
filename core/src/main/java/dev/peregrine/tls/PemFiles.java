package dev.peregrine.tls;

import java.io.ByteArrayInputStream;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads PEM (RFC 7468) certificates and unencrypted PKCS#8 private keys with nothing but
 * {@code java.security}: {@code -----BEGIN CERTIFICATE-----} blocks through {@link CertificateFactory},
 * a {@code -----BEGIN PRIVATE KEY-----} block through {@link KeyFactory} with
 * {@link PKCS8EncodedKeySpec}, trying RSA, then EC. Text outside the blocks is ignored (RFC 7468
 * section 2). Legacy {@code BEGIN RSA PRIVATE KEY} (PKCS#1) and encrypted keys are refused with a
 * message saying how to convert them.
 */
public final class PemFiles {
    private static final String[] KEY_ALGORITHMS = {"RSA", "EC"};

    private PemFiles() {
    }

    /** Every certificate in {@code pem}, in file order (leaf first for a chain). */
    public static X509Certificate[] readCertificates(String pem) {
        List<byte[]> blocks = blocks(pem, "CERTIFICATE");
        if (blocks.isEmpty()) {
            throw new IllegalArgumentException("no -----BEGIN CERTIFICATE----- block found");
        }
        try {
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            X509Certificate[] chain = new X509Certificate[blocks.size()];
            for (int i = 0; i < chain.length; i++) {
                chain[i] = (X509Certificate) cf.generateCertificate(new ByteArrayInputStream(blocks.get(i)));
            }
            return chain;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("bad certificate: " + e.getMessage(), e);
        }
    }

    /** The PKCS#8 private key in {@code pem} (RSA or EC). */
    public static PrivateKey readPrivateKey(String pem) {
        if (pem.contains("-----BEGIN RSA PRIVATE KEY-----") || pem.contains("-----BEGIN EC PRIVATE KEY-----")) {
            throw new IllegalArgumentException("key is in a legacy format; convert it to PKCS#8 with "
                    + "`openssl pkcs8 -topk8 -nocrypt -in key.pem -out key-pkcs8.pem`");
        }
        if (pem.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
            throw new IllegalArgumentException("encrypted keys are not supported; decrypt with `openssl pkcs8 -nocrypt`");
        }
        List<byte[]> blocks = blocks(pem, "PRIVATE KEY");
        if (blocks.size() != 1) {
            throw new IllegalArgumentException("expected one -----BEGIN PRIVATE KEY----- block, found " + blocks.size());
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(blocks.get(0));
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // not this algorithm: try the next
            }
        }
        throw new IllegalArgumentException("private key is neither RSA nor EC PKCS#8");
    }

    /** The decoded bodies of every {@code BEGIN label} block. */
    static List<byte[]> blocks(String pem, String label) {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        List<byte[]> out = new ArrayList<>();
        int from = 0;
        while (true) {
            int b = pem.indexOf(begin, from);
            if (b < 0) {
                return out;
            }
            int e = pem.indexOf(end, b);
            if (e < 0) {
                throw new IllegalArgumentException("unterminated " + begin);
            }
            String body = pem.substring(b + begin.length(), e);
            try {
                out.add(Base64.getMimeDecoder().decode(body));
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("bad base64 in " + label + " block", ex);
            }
            from = e + end.length();
        }
    }

    /** {@code der} as a PEM block with 64-character lines (RFC 7468 section 2). */
    public static String encode(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }
}
