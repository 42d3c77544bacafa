package dev.peregrine.e2e;

import dev.peregrine.Server;
import dev.peregrine.testing.Await;
import dev.peregrine.testing.RawClient;
import dev.peregrine.testing.RawResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Server#close()}: finishes responses being written, closes idle connections, frees the port and the buffers. */
@ParameterizedClass(name = "{0}")
@MethodSource("dev.peregrine.e2e.ServerFactory#all")
class ServerLifecycleTest {
    private final ServerFactory factory;

    ServerLifecycleTest(ServerFactory factory) {
        this.factory = factory;
    }

    @Test
    void closeFinishesResponsesBeingWrittenAndClosesIdleConnections() throws Exception {
        // A long grace: a loaded machine may take a while to push 8 MiB through a 4 KiB receive window.
        Server server = factory.start(b -> b.maxPendingOutput(64 << 20).shutdownGrace(java.time.Duration.ofSeconds(60)));
        try (RawClient busy = new RawClient(server.port(), 4096); RawClient idle = new RawClient(server.port())) {
            assertEquals(200, idle.send("GET /plaintext HTTP/1.1\r\nHost: x\r\n\r\n").read().status);
            busy.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n".repeat(4));
            Await.until(() -> server.metrics().lentBuffers > 0, () -> "responses not pending: " + server.metrics());

            CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
            assertTrue(idle.closedByServer(), "an idle connection is closed by the server");
            for (int i = 0; i < 4; i++) {
                assertArrayEquals(TestRoutes.BIG, busy.read().body, "response " + i + " finished during close");
            }
            assertTrue(busy.closedByServer());
            busy.close();
            closing.get(20, TimeUnit.SECONDS);
        } finally {
            server.close();
        }
        assertEquals(0, server.metrics().lentBuffers);
        assertEquals(0, server.metrics().open);
        org.junit.jupiter.api.Assertions.assertThrows(java.net.ConnectException.class, () -> RawClient.connect(server.port()).close(),
                "a closed server accepts nothing");
        try (Server again = factory.start(b -> b.port(server.port()))) {
            assertEquals(server.port(), again.port(), "the port is free again at once");
            try (Socket s = RawClient.connect(again.port())) {
                s.getOutputStream().write(RawClient.bytes("GET /json HTTP/1.1\r\nHost: x\r\n\r\n"));
                assertTrue(RawResponse.read(s.getInputStream()).text().contains("Hello"));
            }
        }
    }

    @Test
    void withoutReusePortOneLoopAcceptsForAll() throws Exception {
        try (Server server = factory.start(b -> b.reusePort(false))) {
            java.util.List<Socket> sockets = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < 64; i++) {
                    Socket s = RawClient.connect(server.port());
                    sockets.add(s);
                    s.getOutputStream().write(RawClient.bytes("GET /users/" + i + "/posts/r HTTP/1.1\r\nHost: x\r\n\r\n"));
                }
                for (int i = 0; i < 64; i++) {
                    assertEquals("id=" + i + " slug=r", RawResponse.read(sockets.get(i).getInputStream()).text());
                }
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }
            Await.until(() -> server.metrics().open == 0, () -> "still open: " + server.metrics());
            assertEquals(64, server.metrics().accepted);
        }
    }
}
