package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * A fresh server from the class's {@link ServerFactory} for each test; after each test, once the
 * test's clients are gone, every pooled buffer must be back (the server leaks nothing).
 */
abstract class ServerTestBase {
    /** One client for the whole suite: HTTP/1.1 only, so no h2c upgrade dance. */
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(20)).build();

    final ServerFactory factory;
    Server server;

    ServerTestBase(ServerFactory factory) {
        this.factory = factory;
    }

    @BeforeEach
    void startServer() {
        server = factory.start();
    }

    @AfterEach
    void stopServer() {
        try {
            awaitNoLentBuffers(server);
        } finally {
            server.close();
        }
    }

    static void awaitNoLentBuffers(Server s) {
        Await.until(() -> s.metrics().lentBuffers == 0, () -> "buffers still lent: " + s.metrics());
    }

    Socket connect() throws IOException {
        return RawClient.connect(server.port());
    }

    /** Writes {@code request} in one write on a new connection and returns all the server sends until it closes. */
    byte[] sendAndReadToEof(Server s, byte[] request) throws IOException {
        try (Socket socket = RawClient.connect(s.port())) {
            socket.getOutputStream().write(request);
            InputStream in = socket.getInputStream();
            return in.readAllBytes();
        }
    }

    String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }
}
