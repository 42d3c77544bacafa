package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A TLS 1.2 client that starts a new handshake on an established connection (renegotiation, each one
 * a full handshake of server CPU for a few bytes of the client's) is closed, with either provider, on
 * both transports; the requests before it were served.
 */
class TlsRenegotiationTest {
    private Server server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void clientInitiatedRenegotiationClosesTheConnection(String transport, TlsConfig.Provider provider) throws Exception {
        server = TlsTesting.start(transport, TlsTesting.tls(provider).build());
        try (SSLSocket s = TlsTesting.connect(server.httpsPort(), "TLSv1.2", null)) {
            byte[] get = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            s.getOutputStream().write(get);
            assertTrue(RawResponse.read(s.getInputStream()).wire().startsWith("HTTP/1.1 200 "));
            boolean closed;
            try {
                s.startHandshake(); // on an established TLS 1.2 session: a renegotiation
                s.getOutputStream().write(get);
                closed = s.getInputStream().read() < 0;
            } catch (IOException refused) {
                closed = true;
            }
            assertTrue(closed, "the server answered after a renegotiation");
        }
    }
}
