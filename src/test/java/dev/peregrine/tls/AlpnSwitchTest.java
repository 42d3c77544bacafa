package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.e2e.EchoProtocol;
import dev.peregrine.examples.PlaintextApp;
import dev.peregrine.server.ProtocolSwitches;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ALPN (RFC 7301) chooses the protocol a TLS connection speaks before its first byte: a client
 * offering the test protocol's name gets it, one offering only {@code http/1.1} gets HTTP, on every
 * transport and TLS provider.
 */
class AlpnSwitchTest {
    static Stream<org.junit.jupiter.params.provider.Arguments> cases() {
        return TlsTesting.transportsAndProviders();
    }

    private static Server start(String transport, TlsConfig.Provider provider) {
        return ProtocolSwitches.alpn(PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0).threads(1)
                .transport(transport).https(0, TlsTesting.tls(provider).build()), "x-echo", EchoProtocol::new).start();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void clientChoosingTheProtocolGetsIt(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, provider);
             SSLSocket s = connect(server.httpsPort(), "x-echo", "http/1.1")) {
            assertEquals("x-echo", s.getApplicationProtocol());
            s.getOutputStream().write("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            assertEquals("GET / HTTP/1.1\r\n\r\n", readExactly(s.getInputStream(), 18));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void clientOfferingOnlyHttp11GetsHttp(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = start(transport, provider);
             SSLSocket s = connect(server.httpsPort(), "http/1.1")) {
            assertEquals("http/1.1", s.getApplicationProtocol());
            s.getOutputStream().write("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            s.getOutputStream().flush();
            String response = RawResponse.read(s.getInputStream()).wire();
            assertTrue(response.startsWith("HTTP/1.1 200"), response);
        }
    }

    private static SSLSocket connect(int port, String... alpn) throws Exception {
        SSLSocket s = (SSLSocket) TlsTesting.clientContext(TlsTesting.CERT.certificate()).getSocketFactory()
                .createSocket("127.0.0.1", port);
        s.setSoTimeout(20_000);
        SSLParameters p = s.getSSLParameters();
        p.setApplicationProtocols(alpn);
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    private static String readExactly(InputStream in, int n) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        while (got.size() < n) {
            int b = in.read();
            assertTrue(b >= 0, () -> "connection ended after " + got);
            got.write(b);
        }
        return got.toString(StandardCharsets.ISO_8859_1);
    }
}
