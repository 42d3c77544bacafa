package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLSocket;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One TLS connection at a time, seen closely: ALPN, SNI, pipelining, close_notify both ways. */
class TlsConnectionTest {
    private static final DevCertificate RSA = DevCertificate.generate("RSA", "rsa.example");
    private static final DevCertificate EC = DevCertificate.generate("EC", "*.ec.example");

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void alpnSelectsHttp11(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build())) {
            for (String version : new String[]{"TLSv1.3", "TLSv1.2"}) {
                try (SSLSocket s = TlsTesting.connect(server.httpsPort(), version, null)) {
                    assertEquals("http/1.1", s.getApplicationProtocol()); // the client offered h2 first
                    assertEquals(version, s.getSession().getProtocol());
                    s.getOutputStream().write("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    assertTrue(RawResponse.read(s.getInputStream()).wire().endsWith("\r\n\r\nHello, World!"));
                }
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void sniChoosesTheCertificate(String transport, TlsConfig.Provider provider) throws Exception {
        TlsConfig tls = TlsTesting.tls(provider)
                .identity(RSA.chain(), RSA.privateKey(), "rsa.example")
                .identity(EC.chain(), EC.privateKey(), "*.ec.example")
                .build();
        X509Certificate[] trusted = {TlsTesting.CERT.certificate(), RSA.certificate(), EC.certificate()};
        try (Server server = TlsTesting.start(transport, tls)) {
            for (String version : new String[]{"TLSv1.3", "TLSv1.2"}) {
                assertEquals(RSA.certificate(), peer(server, version, "rsa.example", trusted));
                assertEquals(EC.certificate(), peer(server, version, "api.ec.example", trusted));
                assertEquals(TlsTesting.CERT.certificate(), peer(server, version, "localhost", trusted));
                assertEquals(TlsTesting.CERT.certificate(), peer(server, version, "unknown.example", trusted));
                assertEquals(TlsTesting.CERT.certificate(), peer(server, version, "deep.api.ec.example", trusted));
            }
        }
    }

    private static X509Certificate peer(Server server, String version, String name, X509Certificate[] trusted) throws Exception {
        // Host names other than localhost are not in the certificates' SANs the JDK client checks only
        // for HTTPS endpoint identification, which a bare SSLSocket does not turn on.
        try (SSLSocket s = TlsTesting.connect(server.httpsPort(), version, name, trusted)) {
            return (X509Certificate) s.getSession().getPeerCertificates()[0];
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void pipelinedRequestsInOneRecordAndByteByByte(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build());
             SSLSocket s = TlsTesting.connect(server.httpsPort(), "TLSv1.3", null)) {
            StringBuilder batch = new StringBuilder();
            for (int i = 0; i < 20; i++) {
                batch.append("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n");
                batch.append("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello");
            }
            OutputStream out = s.getOutputStream();
            out.write(batch.toString().getBytes(StandardCharsets.US_ASCII)); // one record
            InputStream in = s.getInputStream();
            for (int i = 0; i < 20; i++) {
                assertTrue(RawResponse.read(in).wire().endsWith("Hello, World!"));
                assertTrue(RawResponse.read(in).wire().endsWith("hello"));
            }
            byte[] one = "GET /json HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            for (byte b : one) {
                out.write(b); // one record per byte
            }
            assertTrue(RawResponse.read(in).wire().endsWith("{\"message\":\"Hello, World!\"}"));
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void serverSendsCloseNotifyAfterConnectionClose(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build())) {
            for (String version : new String[]{"TLSv1.3", "TLSv1.2"}) {
                try (EngineClient c = new EngineClient(server.httpsPort(), TlsTesting.clientContext(TlsTesting.CERT.certificate()), version)) {
                    c.send("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\nGET /plaintext HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
                    String all = c.readToEnd();
                    assertEquals(2, all.split("Hello, World!", -1).length - 1, all);
                    assertTrue(c.closeNotifyReceived(), "no close_notify before EOF");
                }
            }
            Await.until("connections left open: none", () -> server.metrics().open == 0);
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void clientCloseNotifyEndsTheConnection(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build())) {
            for (String version : new String[]{"TLSv1.3", "TLSv1.2"}) {
                try (EngineClient c = new EngineClient(server.httpsPort(), TlsTesting.clientContext(TlsTesting.CERT.certificate()), version)) {
                    c.send("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n");
                    c.sendCloseNotify(); // the socket stays open: only the TLS alert says "end"
                    String all = c.readToEnd();
                    assertTrue(all.endsWith("Hello, World!"), all);
                    assertTrue(c.closeNotifyReceived(), "the server did not answer with close_notify " + version);
                }
            }
            Await.until("connections left open: none", () -> server.metrics().open == 0);
            Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void badRequestOverTlsGets400ThenCloseNotify(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build());
             EngineClient c = new EngineClient(server.httpsPort(), TlsTesting.clientContext(TlsTesting.CERT.certificate()), "TLSv1.3")) {
            c.send("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n");
            String all = c.readToEnd();
            assertTrue(all.startsWith("HTTP/1.1 400 "), all);
            assertTrue(c.closeNotifyReceived(), "no close_notify after the error response");
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void manyConnectionsAtOnceOnTwoLoops(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = dev.peregrine.examples.PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0)
                .threads(2).transport(transport).http2(false).https(0, TlsTesting.tls(provider).build()).start()) { // HTTP/1.1 over TLS
            int clients = 24;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(clients);
            try {
                java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
                byte[] body = new byte[100_000];
                java.util.Arrays.fill(body, (byte) 'x');
                for (int i = 0; i < clients; i++) {
                    String version = i % 2 == 0 ? "TLSv1.3" : "TLSv1.2";
                    done.add(pool.submit(() -> {
                        try (SSLSocket s = TlsTesting.connect(server.httpsPort(), version, null)) {
                            OutputStream out = s.getOutputStream();
                            InputStream in = s.getInputStream();
                            for (int r = 0; r < 10; r++) {
                                out.write("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                                assertTrue(RawResponse.read(in).wire().endsWith("Hello, World!"));
                                out.write(("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + body.length + "\r\n\r\n")
                                        .getBytes(StandardCharsets.US_ASCII));
                                out.write(body);
                                String echo = RawResponse.read(in).wire();
                                assertEquals(body.length, echo.length() - echo.indexOf("\r\n\r\n") - 4);
                            }
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> f : done) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            Await.until("connections left open: none", () -> server.metrics().open == 0);
            Await.until(() -> server.metrics().lentBuffers == 0, () -> "buffers still lent: " + server.metrics());
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void httpsOnlyServerSpeaksTlsOnItsMainPort(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = dev.peregrine.examples.PlaintextApp.routes(Server.builder()).host("127.0.0.1").port(0)
                .threads(1).transport(transport).http2(false).tls(TlsTesting.tls(provider).build()).start()) { // HTTP/1.1 over TLS
            assertEquals(server.port(), server.httpsPort());
            try (SSLSocket s = TlsTesting.connect(server.port(), "TLSv1.3", null)) {
                s.getOutputStream().write("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertTrue(RawResponse.read(s.getInputStream()).wire().endsWith("Hello, World!"));
            }
            try (java.net.Socket plain = RawClient.connect(server.port())) {
                plain.getOutputStream().write("GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                assertTrue(TlsTesting.closedByServer(plain), "plain HTTP on the TLS port was not closed");
            }
        }
    }
}
