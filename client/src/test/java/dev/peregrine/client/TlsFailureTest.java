package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.tls.DevCertificate;
import dev.peregrine.tls.TlsConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLHandshakeException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A certificate the client cannot trust, or one that does not name the host, fails the call closed
 * with phase {@link ClientException.Phase#TLS} and the handshake exception as its cause: never
 * "connection reset", never retried, and the server never sees the request. Both clients, both transports.
 */
class TlsFailureTest {
    private static ClientException failure(java.util.concurrent.CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(ClientException.class, e.getCause());
    }

    private static void assertTlsFailure(ClientException e) {
        assertEquals(ClientException.Phase.TLS, e.phase(), e.toString());
        assertInstanceOf(SSLHandshakeException.class, e.getCause(), e.toString());
        assertTrue(e.getMessage().contains("TLS failed"), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("dev.peregrine.client.HttpClientTest#transports")
    void anUntrustedCertificateOrAnotherHostsNameIsATlsFailure(Transport t) throws Exception {
        TlsConfig localhost = TlsConfig.selfSigned();
        DevCertificate other = DevCertificate.generate("EC", "other.example");
        TlsConfig otherName = TlsConfig.builder().identity(other.chain(), other.privateKey()).build();
        try (Server untrusted = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).tls(localhost)
                .get("/s", (req, res) -> res.text("secret")).start();
             Server misnamed = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).tls(otherName)
                     .get("/s", (req, res) -> res.text("secret")).start();
             // Trusts the misnamed server's certificate, not the first one's.
             HttpClient client = HttpClient.builder().transport(t).sslContext(TrustingContext.of(other.certificate())).build();
             PipelineClient pipeline = PipelineClient.on(client).build()) {
            for (int i = 0; i < 2; i++) {
                assertTlsFailure(failure(client.send(ClientRequest.get("https://localhost:" + untrusted.port() + "/s"))));
                assertTlsFailure(failure(client.send(ClientRequest.get("https://localhost:" + misnamed.port() + "/s"))));
                assertTlsFailure(failure(pipeline.send(ClientRequest.get("https://localhost:" + untrusted.port() + "/s"))));
                assertTlsFailure(failure(pipeline.send(ClientRequest.get("https://localhost:" + misnamed.port() + "/s"))));
            }
            assertEquals(0, untrusted.metrics().requests, "nothing was sent in clear or otherwise");
            assertEquals(0, misnamed.metrics().requests);
        }
    }
}
