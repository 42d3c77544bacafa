package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import org.junit.jupiter.params.provider.Arguments;

import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
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

    private static final List<String> TRANSPORTS = availableTransports();

    /** Transports the TLS tests run on: NIO, and epoll wherever that transport exists and runs. */
    static List<String> transports() {
        return TRANSPORTS;
    }

    private static List<String> availableTransports() {
        List<String> list = new ArrayList<>(List.of("nio"));
        try (Server probe = Server.builder().transport("epoll").host("127.0.0.1").port(0).threads(1).start()) {
            list.add("epoll");
        } catch (IllegalStateException | java.io.UncheckedIOException e) {
            // no epoll transport in this build or on this machine
        }
        return List.copyOf(list);
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

    /** The plaintext app on free ports, HTTP and HTTPS, one loop each. */
    static Server start(String transport, TlsConfig tls) {
        return PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).transport(transport)
                .https(0, tls).start();
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

    /** Reads one response with a Content-Length body; returns head and body as text. */
    static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("EOF inside a response head: " + head);
            }
            head.write(b);
            state = (b == '\r' && (state == 0 || state == 2)) || (b == '\n' && (state == 1 || state == 3)) ? state + 1 : (b == '\r' ? 1 : 0);
        }
        String h = head.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : h.split("\r\n")) {
            if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        byte[] body = in.readNBytes(length);
        if (body.length != length) {
            throw new IOException("EOF inside a response body");
        }
        return h + new String(body, StandardCharsets.ISO_8859_1);
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

    static Socket plain(int port) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        return s;
    }
}
