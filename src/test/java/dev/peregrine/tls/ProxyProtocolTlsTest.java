package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.proxy.ProxyProtocol;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The PROXY header before the TLS handshake (as HAProxy's {@code send-proxy-v2} on an {@code ssl}
 * backend sends it), on both transports and both providers, on the main port ({@code tls}) and a
 * second HTTPS port ({@code https}): the client's address from the header, the handshake on the
 * bytes after it, and a header-less TLS client closed.
 */
class ProxyProtocolTlsTest {
    private static final String REQUEST = "GET /client HTTP/1.1\r\nHost: localhost\r\n\r\n";

    private static Server start(String transport, TlsConfig tls, boolean mainPort) {
        Server.Builder b = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1).transport(transport)
                .proxyProtocol(ProxyProtocol.trusting("127.0.0.1")).httpsProxyProtocol(mainPort ? null : ProxyProtocol.trusting("127.0.0.1"))
                .get("/client", (req, res) -> res.text(req.remoteAddress().getAddress().getHostAddress() + " "
                        + req.remoteAddress().getPort()));
        return (mainPort ? b.tls(tls) : b.https(0, tls)).start();
    }

    /** Sends {@code header} on a plain socket, then handshakes over the same socket and asks once. */
    private static String ask(int port, byte[] header) throws Exception {
        Socket plain = RawClient.connect(port);
        plain.setSoTimeout(20_000);
        plain.getOutputStream().write(header);
        try (SSLSocket s = (SSLSocket) TlsTesting.clientContext(TlsTesting.CERT.certificate()).getSocketFactory()
                .createSocket(plain, "localhost", port, true)) {
            s.startHandshake();
            s.getOutputStream().write(REQUEST.getBytes(StandardCharsets.US_ASCII));
            String r = RawResponse.read(s.getInputStream()).wire();
            return r.substring(r.indexOf("\r\n\r\n") + 4);
        }
    }

    private static byte[] v2Ipv4(String src, int port) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(28);
        b.put(new byte[]{0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
        b.put((byte) 0x21).put((byte) 0x11).putShort((short) 12);
        b.put(java.net.InetAddress.getByName(src).getAddress()).put(new byte[]{127, 0, 0, 1});
        b.putShort((short) port).putShort((short) 443);
        return b.array();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void headerThenHandshakeOnTheMainPort(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, TlsTesting.tls(provider).build(), true)) {
            assertEquals("198.51.100.4 3333", ask(server.port(), v2Ipv4("198.51.100.4", 3333)));
            assertEquals("203.0.113.9 4444", ask(server.port(),
                    "PROXY TCP4 203.0.113.9 127.0.0.1 4444 443\r\n".getBytes(StandardCharsets.US_ASCII)));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void bothListenersOfAServerExpectTheHeader(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, TlsTesting.tls(provider).build(), false)) {
            assertEquals("198.51.100.5 5555", ask(server.httpsPort(), v2Ipv4("198.51.100.5", 5555)));
            try (Socket s = RawClient.connect(server.port())) {
                s.setSoTimeout(20_000);
                s.getOutputStream().write(("PROXY TCP4 198.51.100.6 127.0.0.1 6666 80\r\n" + REQUEST)
                        .getBytes(StandardCharsets.US_ASCII));
                assertTrue(RawResponse.read(s.getInputStream()).wire().endsWith("198.51.100.6 6666"));
            }
        }
    }

    /** Per listener: PROXY on the HTTPS port only; the main port serves peers directly, and the reverse. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void eachListenerHasItsOwnSetting(String transport, TlsConfig.Provider provider) throws Exception {
        TlsConfig tls = TlsTesting.tls(provider).build();
        Server.Builder onlyHttps = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1)
                .transport(transport).https(0, tls).httpsProxyProtocol(ProxyProtocol.trusting("127.0.0.1"))
                .get("/client", (req, res) -> res.text(req.remoteAddress().getAddress().getHostAddress()));
        try (Server server = onlyHttps.start()) {
            assertEquals("198.51.100.7", ask(server.httpsPort(), v2Ipv4("198.51.100.7", 7777)));
            try (Socket s = RawClient.connect(server.port())) {
                s.setSoTimeout(20_000);
                s.getOutputStream().write(REQUEST.getBytes(StandardCharsets.US_ASCII));
                assertTrue(RawResponse.read(s.getInputStream()).wire().endsWith("127.0.0.1"));
            }
        }
        Server.Builder onlyMain = PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1)
                .transport(transport).https(0, tls).proxyProtocol(ProxyProtocol.trusting("127.0.0.1"))
                .get("/client", (req, res) -> res.text(req.remoteAddress().getAddress().getHostAddress()));
        try (Server server = onlyMain.start()) {
            HttpClient client = HttpClient.newBuilder().sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate()))
                    .version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.httpsPort()
                    + "/client")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals("127.0.0.1", r.body());
            try (Socket s = RawClient.connect(server.port())) {
                s.setSoTimeout(20_000);
                s.getOutputStream().write(("PROXY TCP4 198.51.100.8 127.0.0.1 8888 80\r\n" + REQUEST)
                        .getBytes(StandardCharsets.US_ASCII));
                assertTrue(RawResponse.read(s.getInputStream()).wire().endsWith("198.51.100.8"));
            }
        }
    }

    /** A setting for a listener the server does not have is a mistake: refused at start, naming it. */
    @org.junit.jupiter.api.Test
    void httpsProxyProtocolWithoutAnHttpsPortFailsAtStart() {
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> Server.builder().host("127.0.0.1").port(0).httpsProxyProtocol(ProxyProtocol.trusting("127.0.0.1")).start());
        assertTrue(e.getMessage().contains("httpsProxyProtocol"), e.getMessage());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void aTlsClientWithoutHeaderIsClosed(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, TlsTesting.tls(provider).build(), true)) {
            HttpClient client = HttpClient.newBuilder().sslContext(TlsTesting.clientContext(TlsTesting.CERT.certificate()))
                    .version(HttpClient.Version.HTTP_1_1).build();
            try {
                HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + server.port() + "/client"))
                        .build(), HttpResponse.BodyHandlers.ofString());
                throw new AssertionError("answered without a PROXY header: " + r.statusCode());
            } catch (IOException expected) {
                // the ClientHello is not a PROXY header: closed
            }
            Await.until(() -> server.metrics().proxyMalformed >= 1, server.metrics()::toString);
        }
    }
}
