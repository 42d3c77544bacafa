package dev.peregrine.transport.epoll;

import dev.peregrine.Server;
import dev.peregrine.testing.RawClient;

/**
 * Run in a child JVM by {@link EpollFallbackTest}: starts a server with the transport named in
 * {@code args[0]}, makes one request over a raw socket ({@link RawClient}), and prints
 * {@code transport=<name> ok}, or {@code failed: <message>} and exits with 3 when the server does not start.
 */
public final class TransportProbe {
    private TransportProbe() {
    }

    public static void main(String[] args) throws Exception {
        Server server;
        try {
            server = Server.builder().host("127.0.0.1").port(0).threads(1).transport(args[0])
                    .get("/plaintext", (req, res) -> res.text("Hello, World!")).start();
        } catch (RuntimeException e) {
            System.out.println("failed: " + e.getMessage());
            System.exit(3);
            return;
        }
        try (RawClient c = new RawClient(server.port())) {
            String response = c.send("GET /plaintext HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n").readToEnd();
            if (!response.startsWith("HTTP/1.1 200") || !response.endsWith("Hello, World!")) {
                System.out.println("failed: unexpected response " + response);
                System.exit(4);
            }
        } finally {
            server.close();
        }
        System.out.println("transport=" + server.transport().id() + " ok");
    }
}
