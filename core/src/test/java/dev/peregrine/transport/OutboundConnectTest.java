package dev.peregrine.transport;

import dev.peregrine.Server;
import dev.peregrine.TestConfigs;
import dev.peregrine.loop.ConnectCallback;
import dev.peregrine.loop.Connection;
import dev.peregrine.loop.EventLoop;
import dev.peregrine.loop.Protocol;
import dev.peregrine.route.Router;
import dev.peregrine.testing.Transports;
import dev.peregrine.transport.epoll.EpollTransport;
import dev.peregrine.transport.iouring.IoUringTransport;

import dev.peregrine.transport.nio.NioTransport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Outbound connections through {@link EventLoop#connect}, on both transports: a protocol on a
 * client connection talks to a real server; a refused connect is reported, not lost.
 */
class OutboundConnectTest {
    /** One engine per transport of {@link Transports#names()}. */
    static List<TransportEngine> transports() {
        return Transports.names().map(t -> switch (t) {
            case "epoll" -> EpollTransport.create();
            case "io_uring" -> IoUringTransport.create();
            default -> new NioTransport();
        }).toList();
    }

    /** Sends one request when connected, completes with everything received once the peer closes. */
    static final class OneRequest implements Protocol {
        final StringBuilder received = new StringBuilder();
        final CompletableFuture<String> done = new CompletableFuture<>();

        @Override
        public int onInput(Connection c, ByteBuffer buf, int start, int end) {
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
            return 30_000;
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
            done.complete(received.toString());
        }
    }

    private static TransportServer clientLoops(TransportEngine t) throws IOException {
        return t.startLoops(dev.peregrine.loop.LoopSetup.outbound(dev.peregrine.loop.LoopConfig.builder().threads(1).build()), 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void aProtocolOnAnOutboundConnectionTalksToAServer(TransportEngine t) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t.name())
                .get("/hello", (req, res) -> res.text("hello back")).start()) {
            TransportServer client = clientLoops(t);
            try {
                EventLoop loop = client.loops().get(0).eventLoop();
                OneRequest protocol = new OneRequest();
                CompletableFuture<Connection> connected = new CompletableFuture<>();
                loop.execute(() -> loop.connect(new InetSocketAddress("127.0.0.1", server.port()), null, protocol, 5_000,
                        new ConnectCallback() {
                            @Override
                            public void connected(Connection c) {
                                assertTrue(loop.inEventLoop());
                                c.out().put("GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                                        .getBytes(StandardCharsets.US_ASCII));
                                c.flush();
                                connected.complete(c);
                            }

                            @Override
                            public void failed(IOException cause) {
                                connected.completeExceptionally(cause);
                            }
                        }));
                connected.get(10, TimeUnit.SECONDS);
                String response = protocol.done.get(10, TimeUnit.SECONDS);
                assertTrue(response.startsWith("HTTP/1.1 200 OK\r\n"), response);
                assertTrue(response.endsWith("\r\n\r\nhello back"), response);
            } finally {
                client.close(1_000);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transports")
    void aRefusedConnectIsReportedWithTheAddress(TransportEngine t) throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        TransportServer client = clientLoops(t);
        try {
            EventLoop loop = client.loops().get(0).eventLoop();
            CompletableFuture<Connection> connected = new CompletableFuture<>();
            loop.execute(() -> loop.connect(new InetSocketAddress("127.0.0.1", closedPort), null, new OneRequest(), 5_000,
                    new ConnectCallback() {
                        @Override
                        public void connected(Connection c) {
                            connected.complete(c);
                        }

                        @Override
                        public void failed(IOException cause) {
                            connected.completeExceptionally(cause);
                        }
                    }));
            ExecutionException e = assertThrows(ExecutionException.class, () -> connected.get(10, TimeUnit.SECONDS));
            assertInstanceOf(ConnectException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("127.0.0.1:" + closedPort), e.getCause().getMessage());
        } finally {
            client.close(1_000);
        }
    }
}
