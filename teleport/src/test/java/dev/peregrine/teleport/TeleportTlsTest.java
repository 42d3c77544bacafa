package dev.peregrine.teleport;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.client.ClientException;
import dev.peregrine.client.ClientRequest;
import dev.peregrine.tls.TlsConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Teleport over TLS (ALPN peregrine-tp/1, from the first byte), with each compression; a plain client is refused. */
class TeleportTlsTest {
    private static SSLContext trusting(X509Certificate cert) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setCertificateEntry("c", cert);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL"})
    void teleportsAnswersAndAPlainClientIsRefused(Transport t) throws Exception {
        TlsConfig tls = TlsConfig.selfSigned();
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).teleport(0, tls)
                .get("/n", (req, res) -> res.text("n=" + req.query().get("i")))
                .start()) {
            SSLContext ctx = trusting(tls.certificate());
            for (TeleportCompression c : TeleportCompression.values()) {
                try (TeleportClient tp = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t).tls(ctx)
                        .compression(c).timeout(Duration.ofSeconds(20)).build()) {
                    for (int i = 0; i < 300; i++) {
                        assertEquals("n=" + i, tp.send(ClientRequest.get("http://svc/n?i=" + i)).get(20, TimeUnit.SECONDS).text());
                    }
                }
            }
            try (TeleportClient plain = TeleportClient.builder("127.0.0.1", server.teleportPort()).transport(t)
                    .timeout(Duration.ofSeconds(5)).build()) {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> plain.send(ClientRequest.get("http://svc/n?i=1")).get(20, TimeUnit.SECONDS));
                ClientException.Phase p = ((ClientException) e.getCause()).phase();
                org.junit.jupiter.api.Assertions.assertTrue(p == ClientException.Phase.CONNECT || p == ClientException.Phase.CLOSED, p.toString());
            }
        }
    }
}
