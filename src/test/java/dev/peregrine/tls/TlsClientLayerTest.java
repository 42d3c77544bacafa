package dev.peregrine.tls;

import dev.peregrine.tls.engine.TlsClientLayer;
import dev.peregrine.Server;
import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.LoopSetup;
import dev.peregrine.loop.Protocol;
import dev.peregrine.route.Router;
import dev.peregrine.transport.TransportEngine;
import dev.peregrine.transport.TransportServer;
import dev.peregrine.transport.epoll.EpollTransport;
import dev.peregrine.transport.nio.NioTransport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Outbound TLS through {@link TlsClientLayer} on the connection layer: a client protocol gets an
 * answer from Peregrine's HTTPS port with the name verified and ALPN negotiated, and a certificate
 * that does not match the name ends the connection before any byte is exchanged. Both transports,
 * both server providers.
 */
class TlsClientLayerTest {
    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> cases() {
        return TlsTesting.transportsAndProviders();
    }

    /** Sends one request once connected; completes with what it received when the connection closes. */
    static final class OneRequest implements Protocol {
        final StringBuilder received = new StringBuilder();
        final CompletableFuture<String> closed = new CompletableFuture<>();
        volatile String alpn;

        @Override
        public int onInput(Connection c, ByteBuffer buf, int start, int end) {
            alpn = c.endpoint().applicationProtocol();
            for (int i = start; i < end; i++) {
                received.append((char) (buf.get(i) & 0xFF));
            }
            return end;
        }

        @Override
        public void onInputOverflow(Connection c) {
            c.close();
        }

        @Override
        public void onEndOfInput(Connection c) {
            c.closeOnceWritten();
        }

        @Override
        public int timerPhase() {
            return 1;
        }

        @Override
        public long timeoutMillis(int phase) {
            return 20_000;
        }

        @Override
        public void onTimeout(Connection c, int phase) {
            c.close();
        }

        @Override
        public void onShutdown(Connection c) {
            c.close();
        }

        @Override
        public void onClosed(Connection c) {
            closed.complete(received.toString());
        }
    }

    private static TransportServer clientLoops(Server server, String transport) throws IOException {
        TransportEngine t = switch (transport) {
            case "epoll" -> EpollTransport.create();
            case "io_uring" -> dev.peregrine.transport.iouring.IoUringTransport.create();
            default -> new NioTransport();
        };
        return t.startLoops(LoopSetup.outbound(dev.peregrine.loop.LoopConfig.builder().threads(1).build()), 1);
    }

    private static OneRequest get(TransportServer client, int port, TlsClientLayer layer) throws Exception {
        EventLoop loop = client.loops().get(0).eventLoop();
        OneRequest p = new OneRequest();
        CompletableFuture<Connection> connected = new CompletableFuture<>();
        loop.execute(() -> loop.connect(new InetSocketAddress("127.0.0.1", port), layer, p, 10_000, new ConnectCallback() {
            @Override
            public void connected(Connection c) {
                c.out().put("GET /plaintext HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                c.flush();
                connected.complete(c);
            }

            @Override
            public void failed(IOException cause) {
                connected.completeExceptionally(cause);
            }
        }));
        connected.get(20, TimeUnit.SECONDS);
        return p;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aClientProtocolSpeaksHttpsWithTheNameVerified(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build())) {
            TransportServer client = clientLoops(server, transport);
            try {
                TlsClientLayer layer = new TlsClientLayer(TlsTesting.clientContext(TlsTesting.CERT.certificate()),
                        "localhost", server.httpsPort(), List.of("http/1.1"), true, 10_000);
                OneRequest p = get(client, server.httpsPort(), layer);
                String response;
                try {
                    response = p.closed.get(20, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("no close; received so far: [" + p.received + "] server " + server.metrics(), e);
                }
                assertTrue(response.startsWith("HTTP/1.1 200 OK\r\n"), response);
                assertTrue(response.endsWith("Hello, World!"), response);
                assertEquals("http/1.1", p.alpn);
            } finally {
                client.close(1_000);
            }
        }
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void aCertificateForAnotherNameEndsTheConnectionUnanswered(String transport, TlsConfig.Provider provider) throws Exception {
        try (Server server = TlsTesting.start(transport, TlsTesting.tls(provider).build())) {
            TransportServer client = clientLoops(server, transport);
            try {
                TlsClientLayer layer = new TlsClientLayer(TlsTesting.clientContext(TlsTesting.CERT.certificate()),
                        "peregrine.example", server.httpsPort());
                OneRequest p = get(client, server.httpsPort(), layer);
                assertEquals("", p.closed.get(20, TimeUnit.SECONDS));
                assertEquals(0, server.metrics().requests);
            } finally {
                client.close(1_000);
            }
        }
    }
}
