package dev.peregrine.client;

import dev.peregrine.Server;
import dev.peregrine.Transport;
import dev.peregrine.testing.ScriptedServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The dialer hook end to end: a Unix domain socket server, and a real CONNECT proxy in front of Peregrine. */
class DialerTest {
    private static ClientException failure(HttpSender s, String url) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> s.send(ClientRequest.get(url)).get(10, TimeUnit.SECONDS));
        return assertInstanceOf(ClientException.class, e.getCause());
    }

    @Test
    void aUnixDomainSocketCarriesPooledAndPipelinedCalls() throws Exception {
        Path dir = Files.createTempDirectory("peregrine-uds");
        Path file = dir.resolve("http.sock");
        try (UdsServer server = new UdsServer(file);
             HttpClient client = HttpClient.builder().transport(Transport.NIO).dialer(Dialer.unixDomainSocket(file)).build();
             PipelineClient pipe = PipelineClient.on(client).build()) {
            for (int i = 0; i < 3; i++) {
                ClientResponse r = client.get("http://backend.local/a?i=" + i);
                assertEquals(200, r.status());
                assertEquals("uds /a?i=" + i, r.text());
            }
            assertEquals("uds /p", pipe.send(ClientRequest.get("http://backend.local/p")).get(10, TimeUnit.SECONDS).text());
            assertTrue(server.heads.get(0).contains("Host: backend.local\r\n"), server.heads.get(0));
            assertEquals(2, server.accepted.get(), "one kept-alive connection for the pool, one for the pipeline");
            ClientException https = failure(client, "https://backend.local/");
            assertEquals(ClientException.Phase.CONNECT, https.phase());
            assertTrue(https.getMessage().contains("https over a Unix domain socket"), https.getMessage());
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void onEpollAUnixDomainSocketIsAClearConnectError() throws Exception {
        for (Transport t : List.of(Transport.EPOLL, Transport.IO_URING)) {
            try (HttpClient client = HttpClient.builder().transport(t)
                    .dialer(Dialer.unixDomainSocket(Path.of("/nonexistent/peregrine.sock"))).build()) {
                ClientException e = failure(client, "http://backend.local/");
                assertEquals(ClientException.Phase.CONNECT, e.phase());
                assertTrue(e.getMessage().contains("Transport.NIO"), e.getMessage());
            }
        }
        try (HttpClient client = HttpClient.builder().transport(Transport.NIO)
                .dialer(Dialer.unixDomainSocket(Path.of("/nonexistent/peregrine.sock"))).build()) {
            assertEquals(ClientException.Phase.CONNECT, failure(client, "http://backend.local/").phase());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL", "IO_URING"})
    void aConnectProxyTunnelsToTheHostAndRefusalsNameTheProxysAnswer(Transport t) throws Exception {
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t)
                .get("/hi", (req, res) -> res.text("hi " + req.query().get("n"))).start();
             ConnectProxy proxy = new ConnectProxy("Basic dXNlcjpwYXNz");
             HttpClient client = HttpClient.builder().transport(t)
                     .dialer(Dialer.connectProxy(proxy.address(), "Basic dXNlcjpwYXNz")).build();
             PipelineClient pipe = PipelineClient.on(client).build();
             HttpClient noAuth = HttpClient.builder().transport(t).dialer(Dialer.connectProxy(proxy.address())).build()) {
            String base = "http://127.0.0.1:" + server.port();
            for (int i = 0; i < 3; i++) {
                assertEquals("hi " + i, client.get(base + "/hi?n=" + i).text());
            }
            for (int i = 0; i < 3; i++) {
                assertEquals("hi p" + i, pipe.send(ClientRequest.get(base + "/hi?n=p" + i)).get(10, TimeUnit.SECONDS).text());
            }
            assertEquals(List.of("CONNECT 127.0.0.1:" + server.port(), "CONNECT 127.0.0.1:" + server.port()), proxy.tunnels,
                    "one tunnel for the pool's kept-alive connection, one for the pipeline");
            assertEquals(2, server.metrics().accepted, "the server saw the proxy's two connections");

            ClientException refused = failure(noAuth, base + "/hi");
            assertEquals(ClientException.Phase.CONNECT, refused.phase());
            assertTrue(refused.getMessage().contains("407"), refused.getMessage());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"NIO", "EPOLL", "IO_URING"})
    void httpsGoesThroughTheTunnelWithTheOriginsNameVerifiedAndRefusalsNameTheProxy(Transport t) throws Exception {
        dev.peregrine.tls.TlsConfig tls = dev.peregrine.tls.TlsConfig.selfSigned();
        try (Server server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(t).https(0, tls)
                .get("/hi", (req, res) -> res.text("hi " + req.query().get("n"))).start();
             ConnectProxy proxy = new ConnectProxy("Basic dXNlcjpwYXNz");
             HttpClient client = HttpClient.builder().transport(t).sslContext(TrustingContext.of(tls.certificate()))
                     .dialer(Dialer.connectProxy(proxy.address(), "Basic dXNlcjpwYXNz")).build();
             PipelineClient pipe = PipelineClient.on(client).build();
             HttpClient noAuth = HttpClient.builder().transport(t).sslContext(TrustingContext.of(tls.certificate()))
                     .dialer(Dialer.connectProxy(proxy.address())).build()) {
            String secure = "https://localhost:" + server.httpsPort();
            for (int i = 0; i < 3; i++) {
                assertEquals("hi " + i, client.get(secure + "/hi?n=" + i).text());
            }
            assertEquals("hi p", pipe.send(ClientRequest.get(secure + "/hi?n=p")).get(10, TimeUnit.SECONDS).text());
            assertEquals("hi h", client.get("http://localhost:" + server.port() + "/hi?n=h").text());
            assertEquals(List.of("CONNECT localhost:" + server.httpsPort(), "CONNECT localhost:" + server.httpsPort(),
                    "CONNECT localhost:" + server.port()), proxy.tunnels,
                    "one kept-alive https tunnel for the pool, one for the pipeline, and http to the same host apart");

            // The proxy reaches origin.test (its own mapping), whose certificate names localhost: the client
            // verifies the origin's name, not the proxy's, inside the tunnel.
            ClientException wrongName = failure(client, "https://origin.test:" + server.httpsPort() + "/hi");
            assertEquals("origin.test:" + server.httpsPort(), wrongName.host());

            ClientException refused = failure(noAuth, secure + "/hi");
            assertEquals(ClientException.Phase.CONNECT, refused.phase());
            assertTrue(refused.getMessage().contains("proxy " + proxy.address()) && refused.getMessage().contains("407"),
                    refused.getMessage());
            int closedPort;
            try (ServerSocket s = new ServerSocket(0)) {
                closedPort = s.getLocalPort();
            }
            ClientException badGateway = failure(client, "https://localhost:" + closedPort + "/hi");
            assertEquals(ClientException.Phase.CONNECT, badGateway.phase());
            assertTrue(badGateway.getMessage().contains("proxy " + proxy.address()) && badGateway.getMessage().contains("502"),
                    badGateway.getMessage());
        }
    }

    @Test
    void aProxyThatIsNotThereOrNeverAnswersIsAConnectError() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        try (ScriptedServer silent = new ScriptedServer((c, n) -> c.readRequest()); // reads CONNECT, answers nothing
             HttpClient gone = HttpClient.builder()
                     .dialer(Dialer.connectProxy(new InetSocketAddress(InetAddress.getLoopbackAddress(), closedPort))).build();
             HttpClient mute = HttpClient.builder().connectTimeout(java.time.Duration.ofMillis(300))
                     .dialer(Dialer.connectProxy(new InetSocketAddress(InetAddress.getLoopbackAddress(), silent.port()))).build()) {
            assertEquals(ClientException.Phase.CONNECT, failure(gone, "http://example.test/").phase());
            ClientException e = failure(mute, "http://example.test/");
            assertEquals(ClientException.Phase.CONNECT, e.phase());
            assertTrue(e.getMessage().contains("did not answer CONNECT example.test:80"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> Dialer.connectProxy(InetSocketAddress.createUnresolved("proxy", 3128)));
        assertThrows(IllegalArgumentException.class, () -> HttpClient.builder().dialer(null));
    }

    /** An HTTP server on a Unix domain socket (the JDK's channel), answering "uds TARGET" to every request. */
    private static final class UdsServer implements AutoCloseable {
        final ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        final List<String> heads = new CopyOnWriteArrayList<>();
        final AtomicInteger accepted = new AtomicInteger();

        UdsServer(Path file) throws IOException {
            listener.bind(UnixDomainSocketAddress.of(file));
            AcceptLoop.start("uds", () -> {
                SocketChannel ch = listener.accept();
                accepted.incrementAndGet();
                return ch;
            }, this::serve);
        }

        private void serve(SocketChannel ch) {
            try (ch; InputStream in = Channels.newInputStream(ch)) {
                String head;
                while ((head = ScriptedServer.readHead(in)) != null) {
                    heads.add(head);
                    String body = "uds " + head.split(" ")[1];
                    ch.write(ByteBuffer.wrap(("HTTP/1.1 200 OK\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                            .getBytes(StandardCharsets.ISO_8859_1)));
                }
            } catch (IOException e) {
                // the client went away
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }

    /**
     * A real CONNECT proxy (RFC 9110 §9.3.6) requiring {@code Proxy-Authorization}, relaying bytes both ways;
     * {@code origin.test} is its name for the loopback address, and an origin it cannot reach gets 502.
     */
    private static final class ConnectProxy implements AutoCloseable {
        final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final List<String> tunnels = new CopyOnWriteArrayList<>();
        private final String credentials;

        ConnectProxy(String credentials) throws IOException {
            this.credentials = credentials;
            AcceptLoop.start("proxy", listener::accept, this::tunnel);
        }

        InetSocketAddress address() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
        }

        private void tunnel(Socket client) {
            try (client) {
                InputStream in = client.getInputStream();
                OutputStream out = client.getOutputStream();
                String head = ScriptedServer.readHead(in);
                if (head == null) {
                    return;
                }
                String[] line = head.substring(0, head.indexOf("\r\n")).split(" ");
                if (!head.contains("Proxy-Authorization: " + credentials + "\r\n")) {
                    out.write("HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    return;
                }
                String[] hostPort = line[1].split(":");
                Socket upstream;
                try {
                    upstream = new Socket(hostPort[0].equals("origin.test") ? "127.0.0.1" : hostPort[0], Integer.parseInt(hostPort[1]));
                } catch (IOException e) {
                    out.write("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    return;
                }
                try (upstream) {
                    tunnels.add(line[0] + " " + line[1]);
                    out.write("HTTP/1.1 200 Connection Established\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    Thread back = new Thread(() -> relay(upstream, client), "proxy-back");
                    back.setDaemon(true);
                    back.start();
                    relay(client, upstream);
                }
            } catch (IOException e) {
                // either side went away
            }
        }

        private static void relay(Socket from, Socket to) {
            try {
                from.getInputStream().transferTo(to.getOutputStream());
                to.shutdownOutput();
            } catch (IOException e) {
                // either side went away
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
        }
    }
}
