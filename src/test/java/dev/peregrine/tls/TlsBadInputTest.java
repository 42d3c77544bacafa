package dev.peregrine.tls;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Clients that do not speak TLS properly lose their connection and nothing else: a healthy TLS
 * connection opened before them keeps working, new ones are served, no buffer stays lent.
 */
class TlsBadInputTest {
    private static final byte[] GET = "GET /plaintext HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("dev.peregrine.tls.TlsTesting#transportsAndProviders")
    void badClientsAreClosedAndOthersUnaffected(String transport, TlsConfig.Provider provider) throws Exception {
        // short enough for the stalls below, long enough for healthy handshakes on a loaded machine
        TlsConfig tls = TlsTesting.tls(provider).handshakeTimeout(Duration.ofSeconds(2)).build();
        try (Server server = TlsTesting.start(transport, tls);
             SSLSocket healthy = TlsTesting.connect(server.httpsPort(), "TLSv1.3", null)) {
            int port = server.httpsPort();
            roundTrip(healthy);
            byte[] hello = clientHello();

            // bytes that are not a ClientHello: random noise, and a handshake record of another message
            byte[] noise = new byte[300];
            new Random(1).nextBytes(noise);
            assertClosedAfter(port, noise, false);
            byte[] notHello = Arrays.copyOf(hello, hello.length);
            notHello[5] = 2; // handshake type ServerHello instead of ClientHello
            assertClosedAfter(port, notHello, false);
            // plain HTTP sent to the TLS port
            assertClosedAfter(port, GET, false);
            // a truncated record: half a ClientHello, then FIN
            assertClosedAfter(port, Arrays.copyOf(hello, hello.length / 2), true);
            // a record header announcing more than any record may hold
            assertClosedAfter(port, new byte[]{22, 3, 1, (byte) 0xff, (byte) 0xff, 1, 0, 0}, false);
            // stalls mid-handshake: half a ClientHello and silence, or silence from the start (handshake timeout)
            assertClosedAfter(port, Arrays.copyOf(hello, hello.length / 2), false);
            assertClosedAfter(port, new byte[0], false);

            roundTrip(healthy);
            try (SSLSocket fresh = TlsTesting.connect(port, "TLSv1.2", null)) {
                roundTrip(fresh);
            }
            Await.until(() -> server.metrics().open == 1, () -> "only the healthy connection stays open: " + server.metrics());
            Await.until(() -> server.metrics().lentBuffers == 0, () -> "an idle TLS connection holds no pooled buffer: " + server.metrics());
        }
    }

    private static void roundTrip(SSLSocket s) throws Exception {
        s.getOutputStream().write(GET);
        assertTrue(RawResponse.read(s.getInputStream()).wire().endsWith("Hello, World!"));
    }

    private static void assertClosedAfter(int port, byte[] bytes, boolean fin) throws Exception {
        try (Socket s = RawClient.connect(port)) {
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            if (fin) {
                s.shutdownOutput();
            }
            assertTrue(TlsTesting.closedByServer(s), "the server kept the connection open");
        }
    }

    /** A real ClientHello record, from a client engine. */
    private static byte[] clientHello() throws Exception {
        SSLEngine client = TlsTesting.clientContext(TlsTesting.CERT.certificate()).createSSLEngine("localhost", 443);
        client.setUseClientMode(true);
        ByteBuffer out = ByteBuffer.allocate(64 * 1024);
        client.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] b = new byte[out.remaining()];
        out.get(b);
        assertEquals(22, b[0]); // handshake record
        assertEquals(1, b[5]); // ClientHello
        return b;
    }
}
