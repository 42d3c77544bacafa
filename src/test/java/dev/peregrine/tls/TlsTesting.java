package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.testing.Transports;
import org.junit.jupiter.params.provider.Arguments;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Shared pieces of the TLS tests: certificates, servers, trusting clients, response reading. */
final class TlsTesting {
    /** The development certificate every test server serves by default (EC, localhost/127.0.0.1/::1). */
    static final DevCertificate CERT = DevCertificate.generate();

    private TlsTesting() {
    }

    /** Transports the TLS tests run on: the test kit's list. */
    static List<String> transports() {
        return Transports.names().toList();
    }

    /** transport × provider. */
    static Stream<Arguments> transportsAndProviders() {
        List<Arguments> list = new ArrayList<>();
        for (String t : transports()) {
            for (TlsConfig.Provider p : TlsConfig.Provider.values()) {
                list.add(Arguments.of(t, p));
            }
        }
        return list.stream();
    }

    /** transport × provider × protocol version. */
    static Stream<Arguments> transportsProvidersProtocols() {
        List<Arguments> list = new ArrayList<>();
        for (String t : transports()) {
            for (TlsConfig.Provider p : TlsConfig.Provider.values()) {
                for (String v : new String[]{"TLSv1.3", "TLSv1.2"}) {
                    list.add(Arguments.of(t, p, v));
                }
            }
        }
        return list.stream();
    }

    static TlsConfig.Builder tls(TlsConfig.Provider provider) {
        return TlsConfig.builder().provider(provider).identity(CERT.chain(), CERT.privateKey());
    }

    /**
     * The plaintext app on free ports, HTTP and HTTPS, one loop each, HTTP/1.1 only: these suites speak
     * HTTP/1.1 over TLS through clients that offer ALPN {@code h2} first ({@link #connect}), as browsers do;
     * with HTTP/2 on the server would choose it (Http2TlsTest covers that).
     */
    static Server start(String transport, TlsConfig tls) {
        return PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).transport(transport)
                .http2(false).https(0, tls).start();
    }

    /** A client context trusting exactly {@code trusted}. */
    static SSLContext clientContext(X509Certificate... trusted) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        for (int i = 0; i < trusted.length; i++) {
            ks.setCertificateEntry("c" + i, trusted[i]);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), new SecureRandom());
        return ctx;
    }

    /** A handshaken client socket to {@code port} speaking {@code protocol}, offering ALPN h2 and http/1.1. */
    static SSLSocket connect(int port, String protocol, String sniName, X509Certificate... trusted) throws Exception {
        SSLSocket s = (SSLSocket) clientContext(trusted.length == 0 ? new X509Certificate[]{CERT.certificate()} : trusted)
                .getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(20_000);
        SSLParameters p = s.getSSLParameters();
        p.setProtocols(new String[]{protocol});
        p.setApplicationProtocols(new String[]{"h2", "http/1.1"});
        if (sniName != null) {
            p.setServerNames(List.of(new SNIHostName(sniName)));
        }
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    /**
     * Whether the server closes {@code s} (EOF or reset) within a generous limit, reading and
     * discarding whatever it sends first (an alert).
     */
    static boolean closedByServer(Socket s) throws IOException {
        s.setSoTimeout((int) Duration.ofSeconds(20).toMillis());
        byte[] buf = new byte[4096];
        try {
            InputStream in = s.getInputStream();
            while (in.read(buf) >= 0) {
                // an alert record, then EOF
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException e) {
            return true; // reset: closed as well
        }
    }
}
